// Process isolation for decoder workers: spawning, descriptor passing, and the worker's lockdown (no_new_privs,
// descriptors, rlimits, seccomp) and fatal-signal report. Plain C because CMSG_* and the seccomp API are macros.
#ifndef CISOLATION_H
#define CISOLATION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// The descriptor a worker finds its channel on.
#define RB_WORKER_CHANNEL_FD 3

/// A worker's last words, sent from its fatal-signal handler: magic 'RBDX', the signal, the address space in use.
struct rb_death_note {
    uint32_t magic;
    int32_t signal;
    uint64_t address_space;
};
#define RB_DEATH_MAGIC 0x58444252u

/// A SOCK_SEQPACKET socket pair, both ends close-on-exec. Returns 0 or -errno.
int rb_socketpair(int fds[2]);

/// Spawns `exe` with `argv` and `envp`, `channel` as descriptor RB_WORKER_CHANNEL_FD and nothing else opened for it.
/// Returns the pid, or -errno.
pid_t rb_spawn(const char *exe, char *const argv[], char *const envp[], int channel);

/// Sends `len` bytes and, when `fd` >= 0, the descriptor with them. Returns 0 or -errno.
int rb_send(int sock, const void *buf, size_t len, int fd);

/// Receives one message into `buf` (at most `cap` bytes) and the descriptor sent with it into `*fd` (-1 if none).
/// Returns the length, 0 at end of stream, or -errno.
ssize_t rb_recv(int sock, void *buf, size_t cap, int *fd);

/// Waits until `sock` is readable or `timeout_ms` passes (-1: forever). Returns 1 readable/hung up, 0 timeout, -errno.
int rb_wait_readable(int sock, int timeout_ms);

/// An anonymous memory file of `size` bytes (memfd), close-on-exec. Returns the descriptor or -errno.
int rb_memfd(const char *name, size_t size);

/// Seals a memory file against writes and resizing. Returns 0 or -errno.
int rb_seal(int fd);

/// The worker's first step: die with the parent (PR_SET_PDEATHSIG, SIGKILL) and check that the parent has not
/// already gone (its pid is still `parent`). Returns 0, or -1 when the parent is gone.
int rb_worker_bind_parent(pid_t parent);

/// The worker's lockdown, in order: no_new_privs; every descriptor but the channel closed; rlimits (address space
/// `address_space` bytes, no file growth, `max_files` descriptors, no core dumps); the fatal-signal report on an
/// alternate stack; the seccomp filter. Returns 0, or -errno with `*step` naming the failing step.
int rb_worker_lockdown(int channel, uint64_t address_space, int max_files, const char **step);

/// Sets the CPU-time limit to the time used so far plus `seconds` (SIGXCPU past it). Returns 0 or -errno.
int rb_worker_cpu_budget(unsigned seconds);

/// Sets RLIMIT_AS only (for the sandbox tests without the rest). Returns 0 or -errno.
int rb_set_address_space(uint64_t bytes);

/// Waits for `pid` to end. Sets `*signal` (0 when it exited) and `*exit_code`. Returns 0 or -errno.
int rb_reap(pid_t pid, int *signal, int *exit_code);

/// Sends SIGKILL to `pid`. Returns 0 or -errno.
int rb_kill(pid_t pid);

/// Peak resident set size in KiB: this process's (`children` 0), or the largest of its reaped children's.
long rb_peak_rss_kib(int children);

/// The frame arena (frame_arena.c): arms `base` (`capacity` bytes of zeroed shared memory) for the calling thread, so
/// its next calloc or realloc of `min_bytes` to `capacity` bytes returns `base`. Returns 0, or -1 when an arena is
/// already armed or held, or the arguments are wrong.
int rb_arena_arm(void *base, size_t capacity, size_t min_bytes);

/// The arena's states: idle, armed (not handed out), held (handed out, not yet freed), released (freed, or moved
/// out by a larger realloc).
#define RB_ARENA_IDLE 0
#define RB_ARENA_ARMED 1
#define RB_ARENA_HELD 2
#define RB_ARENA_RELEASED 3

/// The arena's state (RB_ARENA_*).
int rb_arena_state(void);

/// Disarms the arena and returns the state it was in; refuses (-1, nothing changed) while it is held, so its free can
/// still be recognised.
int rb_arena_reset(void);

/// The parent's crash marks (crash_marks.c). `rb_marks_install` opens `path` (truncated) and installs a handler for
/// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP that writes one line "ITEM STAGE SIGNAL" per item in flight,
/// then hands the signal to the handler it replaced. Returns 0 or -errno.
int rb_marks_install(const char *path);
/// Restores the replaced handlers and closes the file.
void rb_marks_uninstall(void);
/// Marks `item` (> 0) in flight in `stage`; returns its slot, or -1 when all 256 are taken.
int rb_marks_claim(long long item, int stage);
/// The item in `slot` moved on to `stage`.
void rb_marks_stage(int slot, int stage);
/// The item in `slot` is no longer in flight.
void rb_marks_release(int slot);

#endif
