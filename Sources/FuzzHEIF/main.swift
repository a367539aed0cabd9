// libFuzzer entry point over the HEIF parser: `make fuzz` builds it with `--sanitize=fuzzer`.
// Built without the sanitizer (plain `swift build`) this is an empty program.
