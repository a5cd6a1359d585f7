/* A small inventory program: structs, tables, loops and an else chain. */
#include <stddef.h>
#define MAX_ITEMS 64
#define SCALE(x) ((x) * 3)
#ifdef VERBOSE
#define TRACE(msg) puts(msg)
#else
#define TRACE(msg) ((void)0)
#endif

int puts(const char *s);
void report_bug(int code, const char *where);

struct item {
    int id;
    int qty;
    double price;
    const char *name;
};

struct stock {
    struct item items[MAX_ITEMS];
    int count;
    int flags;
};

enum color { RED, GREEN = 4, BLUE, };

static const int primes[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, };
static struct item defaults[] = {
    { 0, 21, 20.5, "item0" },
    { 1, 26, 84.5, "item1" },
    { 2, 4, 10.5, "item2" },
    { 3, 35, 13.5, "item3" },
    { 4, 24, 75.5, "item4" },
    { 5, 4, 65.5, "item5" },
};

static int helper_0(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 5;
        if (total > 500) {
            total -= b;
        } else if (total < 2) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 2) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_1(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 3;
        if (total > 300) {
            total -= b;
        } else if (total < 8) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 8) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_2(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 8;
        if (total > 800) {
            total -= b;
        } else if (total < 3) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 3) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_3(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 5;
        if (total > 500) {
            total -= b;
        } else if (total < 3) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 3) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_4(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 8;
        if (total > 800) {
            total -= b;
        } else if (total < 2) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 2) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_5(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 3;
        if (total > 300) {
            total -= b;
        } else if (total < 5) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 5) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_6(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 2;
        if (total > 200) {
            total -= b;
        } else if (total < 8) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 8) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_7(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 2;
        if (total > 200) {
            total -= b;
        } else if (total < 5) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 5) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_8(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 2;
        if (total > 200) {
            total -= b;
        } else if (total < 4) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 4) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_9(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 6;
        if (total > 600) {
            total -= b;
        } else if (total < 8) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 8) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_10(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 4;
        if (total > 400) {
            total -= b;
        } else if (total < 3) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 3) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_11(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 6;
        if (total > 600) {
            total -= b;
        } else if (total < 4) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 4) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_12(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 3;
        if (total > 300) {
            total -= b;
        } else if (total < 5) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 5) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static int helper_13(int a, int b, const struct stock *s)
{
    int total = 0;
    for (int i = 0; i < s->count; i++) {
        total += s->items[i].qty * 7;
        if (total > 700) {
            total -= b;
        } else if (total < 3) {
            total += a;
        } else {
            total ^= primes[i % 10];
        }
    }
    while (a > 3) {
        a--;
        TRACE("loop");
    }
    return total + SCALE(a) - b;
}

static double value_of(const struct stock *s)
{
    double v = 0;
    for (int i = 0; i < s->count; ++i)
        v += s->items[i].qty * s->items[i].price;
    return v;
}

static void fill(struct stock *s)
{
    s->count = 0;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        s->items[s->count++] = defaults[i];
    }
    s->flags = RED | BLUE;
}

int main(void)
{
    struct stock s;
    int acc = 0;
    fill(&s);
    acc += helper_0(0, 1, &s);
    acc += helper_1(1, 2, &s);
    acc += helper_2(2, 3, &s);
    acc += helper_3(3, 4, &s);
    acc += helper_4(4, 5, &s);
    acc += helper_5(5, 6, &s);
    acc += helper_6(6, 7, &s);
    acc += helper_7(7, 8, &s);
    acc += helper_8(8, 9, &s);
    acc += helper_9(9, 10, &s);
    if (acc % 7 == 3) {
        acc = -acc;
    } else if (acc % 7 == 4) {
        acc = acc / 2;
    } else if (value_of(&s) > 1000.0) {
        report_bug(acc, "main");
    } else {
        acc++;
    }
    acc += helper_10(10, 11, &s);
    acc += helper_11(11, 12, &s);
    acc += helper_12(12, 13, &s);
    acc += helper_13(13, 14, &s);
    return acc > 0 ? 0 : 1;
}
