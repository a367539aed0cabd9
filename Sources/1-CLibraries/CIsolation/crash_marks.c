// The parent's crash marks: which items were in flight, in which stage, when the process itself died of a fatal
// signal. Written from the signal handler with async-signal-safe calls only (write, fsync, sigaction, raise) into a
// file opened before the work starts; read by the next run, which counts an attempt for those items only.
#include "CIsolation.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define RB_MARK_SLOTS 256

static _Atomic long long rb_mark_item[RB_MARK_SLOTS];
static _Atomic int rb_mark_stage[RB_MARK_SLOTS];
static int rb_mark_fd = -1;
static int rb_marks_installed = 0;
static struct sigaction rb_mark_previous[NSIG];
static const int rb_mark_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define RB_MARK_SIGNAL_COUNT (sizeof rb_mark_signals / sizeof rb_mark_signals[0])

int rb_marks_claim(long long item, int stage) {
    if (item <= 0) return -1;
    for (int i = 0; i < RB_MARK_SLOTS; i++) {
        long long free_slot = 0;
        if (atomic_compare_exchange_strong(&rb_mark_item[i], &free_slot, item)) {
            atomic_store(&rb_mark_stage[i], stage);
            return i;
        }
    }
    return -1;
}

void rb_marks_stage(int slot, int stage) {
    if (slot >= 0 && slot < RB_MARK_SLOTS) atomic_store(&rb_mark_stage[slot], stage);
}

void rb_marks_release(int slot) {
    if (slot >= 0 && slot < RB_MARK_SLOTS) atomic_store(&rb_mark_item[slot], 0);
}

static void rb_put_number(char *buf, int *n, long long v) {
    char tmp[24];
    int k = 0;
    if (v < 0) {
        buf[(*n)++] = '-';
        v = -v;
    }
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && k < 20);
    while (k > 0) buf[(*n)++] = tmp[--k];
}

static void rb_marks_fatal(int sig, siginfo_t *info, void *context) {
    (void)context;
    int fd = rb_mark_fd;
    if (fd >= 0) {
        for (int i = 0; i < RB_MARK_SLOTS; i++) {
            long long item = atomic_load(&rb_mark_item[i]);
            if (item <= 0) continue;
            char line[80];
            int n = 0;
            rb_put_number(line, &n, item);
            line[n++] = ' ';
            rb_put_number(line, &n, atomic_load(&rb_mark_stage[i]));
            line[n++] = ' ';
            rb_put_number(line, &n, sig);
            line[n++] = '\n';
            ssize_t w = write(fd, line, (size_t)n);
            (void)w;
        }
        fsync(fd);
    }
    // The signal goes on to whoever had it before (Swift's backtracer, or the default action): a fault the kernel
    // raised happens again when this handler returns; one sent by kill or raise is sent again.
    if (sig > 0 && sig < NSIG) sigaction(sig, &rb_mark_previous[sig], NULL);
    if (info == NULL || info->si_code <= 0) raise(sig);
}

int rb_marks_install(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rb_marks_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < RB_MARK_SIGNAL_COUNT; i++) {
        if (sigaction(rb_mark_signals[i], &sa, &rb_mark_previous[rb_mark_signals[i]]) != 0) {
            int e = errno;
            close(fd);
            return -e;
        }
    }
    rb_mark_fd = fd;
    rb_marks_installed = 1;
    return 0;
}

void rb_marks_uninstall(void) {
    // Only what install replaced is restored: a run that ended before installing (its plan never made) must not
    // reset the handlers to zeroed actions.
    if (!rb_marks_installed) return;
    rb_marks_installed = 0;
    for (size_t i = 0; i < RB_MARK_SIGNAL_COUNT; i++) {
        sigaction(rb_mark_signals[i], &rb_mark_previous[rb_mark_signals[i]], NULL);
    }
    int fd = rb_mark_fd;
    rb_mark_fd = -1;
    if (fd >= 0) close(fd);
}
