// The frame arena: LibRaw's one large allocation, its decoded image, placed in shared memory the parent maps, so the
// RAW worker hands the frame over without a copy (docs/security.md, "The frame arena").
//
// LibRaw allocates the image with calloc (realloc when a buffer exists) through its memory manager, which calls the
// process's calloc, realloc and free; its C API has no allocator hook. This file defines those three: with the arena
// disarmed (always, outside a RAW worker's decode) each forwards to glibc at the cost of one atomic load. Armed on one
// thread, the first calloc or realloc on that thread asking for between `min_bytes` and `capacity` bytes gets the
// arena; free and realloc of the arena's address never reach glibc.
#include "CIsolation.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern size_t malloc_usable_size(void *);

enum { IDLE = RB_ARENA_IDLE, ARMED = RB_ARENA_ARMED, HELD = RB_ARENA_HELD, RELEASED = RB_ARENA_RELEASED };

static _Atomic int arena_state = IDLE;
static void *_Atomic arena_base = NULL;
static size_t arena_capacity;
static size_t arena_min;
static pthread_t arena_thread;

int rb_arena_arm(void *base, size_t capacity, size_t min_bytes) {
    int idle = IDLE;
    if (base == NULL || min_bytes > capacity) return -1;
    // Claimed with a state no allocation acts on, filled in, then armed: an allocation on another thread sees either
    // IDLE or the whole arena.
    if (!atomic_compare_exchange_strong(&arena_state, &idle, RELEASED)) return -1;
    arena_capacity = capacity;
    arena_min = min_bytes;
    arena_thread = pthread_self();
    atomic_store(&arena_base, base);
    atomic_store(&arena_state, ARMED);
    return 0;
}

int rb_arena_state(void) { return atomic_load(&arena_state); }

int rb_arena_reset(void) {
    int s = atomic_load(&arena_state);
    // Still held: whoever allocated it may free it later, and must find it known.
    if (s == HELD) return -1;
    atomic_store(&arena_base, NULL);
    atomic_store(&arena_state, IDLE);
    return s;
}

/// Hands the arena out when it is armed for this thread and `bytes` fits; NULL otherwise.
static void *take(size_t bytes) {
    if (atomic_load_explicit(&arena_state, memory_order_relaxed) != ARMED) return NULL;
    if (bytes < arena_min || bytes > arena_capacity || !pthread_equal(pthread_self(), arena_thread)) return NULL;
    int armed = ARMED;
    return atomic_compare_exchange_strong(&arena_state, &armed, HELD) ? atomic_load(&arena_base) : NULL;
}

static int is_arena(const void *p) {
    return p != NULL && p == atomic_load_explicit(&arena_base, memory_order_relaxed) &&
           atomic_load(&arena_state) == HELD;
}

void *calloc(size_t n, size_t size) {
    size_t bytes;
    if (!__builtin_mul_overflow(n, size, &bytes)) {
        // The arena is a fresh memory file: its pages read as zero.
        void *a = take(bytes);
        if (a) return a;
    }
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (is_arena(p)) {
        if (size <= arena_capacity) return p;
        void *q = __libc_malloc(size);
        if (q == NULL) return NULL;
        memcpy(q, p, arena_capacity);
        atomic_store(&arena_state, RELEASED);
        return q;
    }
    void *a = take(size);
    if (a) {
        if (p) {
            size_t old = malloc_usable_size(p);
            memcpy(a, p, old < size ? old : size);
            __libc_free(p);
        }
        return a;
    }
    return __libc_realloc(p, size);
}

void free(void *p) {
    if (is_arena(p)) {
        atomic_store(&arena_state, RELEASED);
        return;
    }
    __libc_free(p);
}
