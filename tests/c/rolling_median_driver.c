/* Drives src/perfgate/detect/_rolling_median.c over random series (lengths 1-399, windows 1 to the
 * length, values with many exact ties or none) for tests/test_rolling.py, which builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer: any out-of-bounds access, leak or undefined
 * operation aborts the run.  Each output is checked against the window sorted afresh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rolling_median(const double *padded, int n, int size, double *out);

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    srand(28);
    long checked = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + rand() % 399, size = 1 + rand() % n;
        double *padded = malloc((n + size - 1) * sizeof *padded);
        double *out = malloc(n * sizeof *out), *sorted = malloc(size * sizeof *sorted);
        for (int i = 0; i < n + size - 1; i++)
            padded[i] = trial % 2 ? rand() % 4 : rand() / (double)RAND_MAX;
        if (rolling_median(padded, n, size, out) != 0) {
            printf("trial %d: the median failed\n", trial);
            return 1;
        }
        for (int i = 0; i < n; i++, checked++) {
            memcpy(sorted, padded + i, size * sizeof *sorted);
            qsort(sorted, size, sizeof *sorted, ascending);
            if (out[i] != sorted[size / 2]) {
                printf("trial %d, window %d of %d values: %g, not %g\n", trial, i, size, out[i], sorted[size / 2]);
                return 1;
            }
        }
        free(padded);
        free(out);
        free(sorted);
    }
    printf("checked %ld windows\n", checked);
    return 0;
}
