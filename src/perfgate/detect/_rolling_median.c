/* A rolling median for perfgate.detect.rolling: scipy.ndimage.median_filter's values (the element
 * of rank size / 2 in each window) without importing scipy (0.25 s of every detect).
 *
 * The window's values are kept sorted; each step finds the leaving value and the entering value's
 * place by binary search and shifts the values between them by one (a memmove of at most the
 * window).  Plain C with no Python API, loaded with ctypes; setuptools builds it as an optional
 * extension.
 */
#include <stdlib.h>
#include <string.h>

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The first of window[0..size) not below x (size if none); without branches on the values, whose
 * mispredictions cost more than the search's comparisons. */
static int lower_bound(const double *window, int size, double x)
{
    const double *base = window;
    if (size == 0)
        return 0;
    while (size > 1) {
        int half = size / 2;
        base = base[half - 1] < x ? base + half : base;
        size -= half;
    }
    return (int)(base - window) + (*base < x);
}

/* padded: n + size - 1 finite values (the series with its edges padded); out: n values, out[i]
 * the element of rank size / 2 (from 0) of padded[i .. i + size).  Returns 0, or -1 when memory
 * ran out. */
int rolling_median(const double *padded, int n, int size, double *out)
{
    double *window = malloc(size * sizeof *window);
    if (!window)
        return -1;
    memcpy(window, padded, size * sizeof *window);
    qsort(window, size, sizeof *window, ascending);
    int rank = size / 2;
    out[0] = window[rank];
    for (int i = 1; i < n; i++) {
        double leaving = padded[i - 1], entering = padded[i + size - 1];
        int from = lower_bound(window, size, leaving);     /* a slot holding the leaving value */
        if (entering > leaving) {       /* the values after it and below the entering one move down */
            int to = lower_bound(window, size, entering) - 1;
            memmove(window + from, window + from + 1, (to - from) * sizeof *window);
            window[to] = entering;
        } else {                        /* the values before it, from the entering one's, move up */
            int to = lower_bound(window, from, entering);      /* equal values may stay either side */
            memmove(window + to + 1, window + to, (from - to) * sizeof *window);
            window[to] = entering;
        }
        out[i] = window[rank];
    }
    free(window);
    return 0;
}
