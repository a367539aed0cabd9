#!/usr/bin/env python3
"""A stand-in for `readback convert/audit --shard` and `readback merge`, so make test-dist proves its Slurm
harness end to end before the Swift side exists. It follows the same rules the real commands must follow
(docs/distributed.md), so its code is also a reference for them:

  generate DIR [--files N]             a source tree: nested folders, non-ASCII names, a few "bad" files
  work SRC --out OUT --shard K/N|auto --report DIR [--delay S]
                                       one shard: each file whose shard is K gets an output OUT/<rel>.out and a
                                       line in the shard's own store OUT/.standin/shard-K-of-N.jsonl (under the
                                       shard's own lock); a rerun resumes from the store; then DIR/report.json
  merge REPORT_DIR... --report OUT     one report.json from N shard reports; exit 2 on a missing, duplicated or
                                       foreign shard, naming them
  resumed REPORT --shard K/N           exit 0 when shard K's files were done across two attempts and every
                                       other shard's in one (the kill-and-requeue test)

Shard of a file: SHA-256 of its path relative to SRC (UTF-8, '/'-separated, as the file system lists it), read
as a 256-bit big-endian unsigned integer, modulo N.
"""

import argparse
import fcntl
import hashlib
import json
import os
import sys
import time


def shard_of(rel_path, count):
    return int.from_bytes(hashlib.sha256(rel_path.encode("utf-8")).digest(), "big") % count


def refuse(reason):
    print(reason, file=sys.stderr)
    sys.exit(2)


def parse_shard(spec):
    """K/N, or auto from the scheduler's variables; exits 2 with a one-line reason otherwise."""
    env = os.environ
    if spec == "auto":
        if "SLURM_ARRAY_TASK_ID" in env and "SLURM_ARRAY_TASK_COUNT" in env:
            index, count = env["SLURM_ARRAY_TASK_ID"], env["SLURM_ARRAY_TASK_COUNT"]
        elif "JOB_COMPLETION_INDEX" in env and "READBACK_SHARDS" in env:
            index, count = env["JOB_COMPLETION_INDEX"], env["READBACK_SHARDS"]
        elif "CI_NODE_INDEX" in env and "CI_NODE_TOTAL" in env:
            index, count = str(int(env["CI_NODE_INDEX"]) - 1), env["CI_NODE_TOTAL"]
        else:
            refuse(
                "--shard auto: none of SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, "
                "JOB_COMPLETION_INDEX/READBACK_SHARDS, CI_NODE_INDEX/CI_NODE_TOTAL is set"
            )
        spec = f"{index}/{count}"
    try:
        index, count = (int(part) for part in spec.split("/"))
    except ValueError:
        refuse(f"--shard {spec}: expected K/N or auto")
    if not 0 <= index < count:
        refuse(f"--shard {spec}: K must satisfy 0 <= K < N")
    return index, count


def list_sources(root):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return sorted(found)


def fingerprint(paths):
    return hashlib.sha256("\n".join(paths).encode("utf-8")).hexdigest()


def generate(args):
    folders = ["", "2023/été", "2024/Ünïcode ✓", "deep/a/b/c"]
    for i in range(args.files):
        name = f"img-{i:04d}{'-bad' if i % 17 == 5 else ''}.raw"
        path = os.path.join(args.dir, folders[i % len(folders)], name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(hashlib.sha256(name.encode()).digest() * (1 + i % 7))
    print(f"generated {args.files} files in {args.dir}")


def read_store(path):
    """The store's complete lines; a torn last line (killed mid-write) is cut off the file."""
    done = {}
    if not os.path.exists(path):
        return done
    with open(path, "rb+") as store:
        data = store.read()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            store.truncate(keep)
        for line in data[:keep].splitlines():
            entry = json.loads(line)
            done[entry["name"]] = entry
    return done


def work(args):
    index, count = parse_shard(args.shard)
    sources = list_sources(args.src)
    mine = [p for p in sources if shard_of(p, count) == index]
    store_dir = os.path.join(args.out, ".standin")
    os.makedirs(store_dir, exist_ok=True)
    store_path = os.path.join(store_dir, f"shard-{index}-of-{count}.jsonl")
    lock = open(store_path + ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        refuse(f"shard {index}/{count} is already running (lock {store_path}.lock)")
    done = read_store(store_path)
    attempt = int(os.environ.get("SLURM_RESTART_COUNT", "0"))
    print(f"shard {index}/{count}: {len(mine)} of {len(sources)} files, {len(done)} already done")
    with open(store_path, "ab") as store:
        for rel in mine:
            if rel in done:
                continue
            with open(os.path.join(args.src, rel), "rb") as src:
                digest = hashlib.sha256(src.read()).hexdigest()
            target = os.path.join(args.out, rel + ".out")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as out:
                out.write(digest + "\n")
            verdict = "fail" if "-bad" in rel else "pass"
            entry = {"name": rel, "verdict": verdict, "sha256": digest, "attempt": attempt}
            store.write((json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
            store.flush()
            os.fsync(store.fileno())
            done[rel] = entry
            time.sleep(args.delay)
    files = [done[p] for p in mine]
    run = {"shard": {"index": index, "count": count}, "sourceFingerprint": fingerprint(sources)}
    run["sourceCount"] = len(sources)
    write_report(args.report, run, files)


def write_report(folder, run, files):
    os.makedirs(folder, exist_ok=True)
    failed = sum(1 for f in files if f["verdict"] == "fail")
    report = {
        "schemaVersion": 1,
        "tool": {"name": "readback-standin"},
        "run": run,
        "summary": {"files": len(files), "passed": len(files) - failed, "failed": failed},
        "files": files,
    }
    with open(os.path.join(folder, "report.json"), "w", encoding="utf-8") as out:
        json.dump(report, out, ensure_ascii=False, indent=1, sort_keys=True)


def merge(args):
    shards = []
    for folder in args.dirs:
        with open(os.path.join(folder, "report.json"), encoding="utf-8") as src:
            report = json.load(src)
        shards.append((folder, report["run"], report["files"]))
    counts = {run["shard"]["count"] for _, run, _ in shards}
    prints = {run["sourceFingerprint"] for _, run, _ in shards}
    if len(counts) != 1 or len(prints) != 1:
        names = ", ".join(f"{f} ({r['shard']['index']}/{r['shard']['count']})" for f, r, _ in shards)
        print(f"merge: the shard reports come from different runs: {names}", file=sys.stderr)
        sys.exit(2)
    count = counts.pop()
    seen = {}
    for folder, run, _ in shards:
        seen.setdefault(run["shard"]["index"], []).append(folder)
    missing = [str(k) for k in range(count) if k not in seen]
    duplicated = [f"{k} ({', '.join(v)})" for k, v in sorted(seen.items()) if len(v) > 1]
    if missing or duplicated:
        why = ([f"missing shards {', '.join(missing)} of {count}"] if missing else []) + (
            [f"duplicated shards {'; '.join(duplicated)}"] if duplicated else []
        )
        print(f"merge: refused: {'; '.join(why)}", file=sys.stderr)
        sys.exit(2)
    files = sorted((f for _, _, fs in shards for f in fs), key=lambda f: f["name"])
    source_count = shards[0][1]["sourceCount"]
    if len(files) != source_count or len({f["name"] for f in files}) != len(files):
        print(f"merge: {len(files)} results for {source_count} sources", file=sys.stderr)
        sys.exit(2)
    run = {"shards": count, "sourceFingerprint": prints.pop(), "sourceCount": source_count}
    write_report(args.report, run, files)
    print(f"merged {count} shards: {len(files)} files into {args.report}/report.json")


def resumed(args):
    index, count = parse_shard(args.shard)
    with open(args.report, encoding="utf-8") as src:
        files = json.load(src)["files"]
    attempts = {}
    for f in files:
        attempts.setdefault(shard_of(f["name"], count), set()).add(f["attempt"])
    bad = [k for k, a in attempts.items() if (len(a) < 2 if k == index else a != {0})]
    for k in sorted(attempts):
        print(f"shard {k}: attempts {sorted(attempts[k])}")
    if bad:
        print(f"resumed: shard {index} should span two attempts and the others one; not so for {bad}")
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("generate")
    p.add_argument("dir")
    p.add_argument("--files", type=int, default=240)
    p.set_defaults(run=generate)
    p = sub.add_parser("work")
    p.add_argument("src")
    p.add_argument("--out", required=True)
    p.add_argument("--shard", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--delay", type=float, default=0.0)
    p.set_defaults(run=work)
    p = sub.add_parser("merge")
    p.add_argument("dirs", nargs="+")
    p.add_argument("--report", required=True)
    p.set_defaults(run=merge)
    p = sub.add_parser("resumed")
    p.add_argument("report")
    p.add_argument("--shard", required=True)
    p.set_defaults(run=resumed)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
