#define _GNU_SOURCE
#include "CIsolation.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int rb_socketpair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

pid_t rb_spawn(const char *exe, char *const argv[], char *const envp[], int channel) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    if (posix_spawn_file_actions_init(&fa) != 0) return -ENOMEM;
    posix_spawnattr_init(&attr);
    // The default signal dispositions and an empty mask, whatever the parent's threads set.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    // dup2 clears close-on-exec on the copy; every other descriptor of the parent's is closed by the worker itself.
    posix_spawn_file_actions_adddup2(&fa, channel, RB_WORKER_CHANNEL_FD);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, exe, &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -rc;
}

int rb_send(int sock, const void *buf, size_t len, int fd) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        memset(&u, 0, sizeof u);
        msg.msg_control = u.buf;
        msg.msg_controllen = sizeof u.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n >= 0) return 0;
        if (errno != EINTR) return -errno;
    }
}

ssize_t rb_recv(int sock, void *buf, size_t cap, int *fd) {
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    *fd = -1;
    ssize_t n;
    do { n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); } while (n < 0 && errno == EINTR);
    if (n < 0) return -errno;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(c), sizeof(int));
    }
    return n;
}

int rb_wait_readable(int sock, int timeout_ms) {
    struct pollfd p = {.fd = sock, .events = POLLIN};
    int n;
    do { n = poll(&p, 1, timeout_ms); } while (n < 0 && errno == EINTR);
    if (n < 0) return -errno;
    return n > 0 ? 1 : 0;
}

int rb_memfd(const char *name, size_t size) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -errno;
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int rb_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0 ? 0 : -errno;
}

int rb_worker_bind_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // The parent may have died between the spawn and the prctl: then nothing would ever kill this worker.
    return getppid() == parent ? 0 : -1;
}

static int rb_channel = -1;
static char rb_altstack[64 * 1024];

/// The address space in use, from /proc/self/statm (pages), with async-signal-safe calls only.
static uint64_t rb_address_space_now(void) {
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    uint64_t pages = 0;
    for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) pages = pages * 10 + (uint64_t)(buf[i] - '0');
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void rb_fatal(int sig) {
    struct rb_death_note note = {.magic = RB_DEATH_MAGIC, .signal = sig, .address_space = rb_address_space_now()};
    if (rb_channel >= 0) send(rb_channel, &note, sizeof note, MSG_NOSIGNAL | MSG_DONTWAIT);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int rb_seccomp(void) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return -ENOMEM;
    const uint32_t kill = SCMP_ACT_KILL_PROCESS;
    int rc = 0;
    // No network (nor any other socket: the channel exists already), no new programs.
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(socket), 0);
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(socketpair), 0);
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(execve), 0);
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(execveat), 0);
    // No file opened for writing or created: write-only, read-write, O_CREAT, O_TRUNC.
    const uint64_t acc = O_ACCMODE;
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, acc, O_WRONLY));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, acc, O_RDWR));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_TRUNC, O_TRUNC));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, acc, O_WRONLY));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, acc, O_RDWR));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_TRUNC, O_TRUNC));
    rc |= seccomp_rule_add(ctx, kill, SCMP_SYS(creat), 0);
    // openat2 keeps its flags in a struct a filter cannot read: refused, so callers fall back to openat.
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
    if (rc != 0) {
        seccomp_release(ctx);
        return -EINVAL;
    }
    // Without SECCOMP_FILTER_FLAG_SPEC_ALLOW the kernel forces the Speculative Store Bypass mitigation on a filtered
    // task, which slows memory-bound decoding on CPUs that have it; a worker holds nothing but the file it decodes.
    // Kernels without the flag refuse it: loaded again without.
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_SSB, 1) == 0) {
        rc = seccomp_load(ctx);
        if (rc == 0) {
            seccomp_release(ctx);
            return 0;
        }
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_SSB, 0);
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}

static int rb_limit(int resource, rlim_t value) {
    struct rlimit r = {.rlim_cur = value, .rlim_max = value};
    return setrlimit(resource, &r) == 0 ? 0 : -errno;
}

int rb_set_address_space(uint64_t bytes) { return rb_limit(RLIMIT_AS, (rlim_t)bytes); }

int rb_worker_lockdown(int channel, uint64_t address_space, int max_files, const char **step) {
    int rc;
    *step = "no_new_privs";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    *step = "closing descriptors";
    for (int fd = 0; fd < channel; fd++) close(fd);
    if (syscall(SYS_close_range, (unsigned)channel + 1, ~0U, 0) != 0) return -errno;
    *step = "rlimits";
    if ((rc = rb_limit(RLIMIT_AS, (rlim_t)address_space)) != 0) return rc;
    if ((rc = rb_limit(RLIMIT_FSIZE, 0)) != 0) return rc;
    if ((rc = rb_limit(RLIMIT_NOFILE, (rlim_t)max_files)) != 0) return rc;
    if ((rc = rb_limit(RLIMIT_CORE, 0)) != 0) return rc;
    *step = "signal handlers";
    rb_channel = channel;
    stack_t ss = {.ss_sp = rb_altstack, .ss_size = sizeof rb_altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) return -errno;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = rb_fatal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE, SIGXCPU, SIGXFSZ};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        if (sigaction(fatal[i], &sa, NULL) != 0) return -errno;
    }
    *step = "seccomp";
    return rb_seccomp();
}

int rb_worker_cpu_budget(unsigned seconds) {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return -errno;
    rlim_t used = (rlim_t)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1;
    struct rlimit r;
    if (getrlimit(RLIMIT_CPU, &r) != 0) return -errno;
    r.rlim_cur = used + seconds;
    if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max) r.rlim_cur = r.rlim_max;
    return setrlimit(RLIMIT_CPU, &r) == 0 ? 0 : -errno;
}

int rb_reap(pid_t pid, int *signal, int *exit_code) {
    int status = 0;
    pid_t r;
    do { r = waitpid(pid, &status, 0); } while (r < 0 && errno == EINTR);
    if (r < 0) return -errno;
    *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return 0;
}

int rb_kill(pid_t pid) { return kill(pid, SIGKILL) == 0 ? 0 : -errno; }

long rb_peak_rss_kib(int children) {
    struct rusage u;
    if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &u) != 0) return -1;
    return u.ru_maxrss;
}
