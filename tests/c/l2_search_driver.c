/* Drives src/perfgate/detect/_l2_search.c over random series (lengths 0-299, minimum sizes 1-12,
 * steps, integer-valued series with exact ties) for tests/test_pelt.py, which builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer: any out-of-bounds access, leak or undefined
 * operation aborts the run.  Also checks that every previous[t] names a start in 0..t. */
#include <stdio.h>
#include <stdlib.h>

int l2_search(const double *x, int n, double pen, int min_size, int *previous);

int main(void)
{
    srand(16);
    long checked = 0;
    for (int trial = 0; trial < 20000; trial++) {
        int n = rand() % 300, min_size = 1 + rand() % 12;
        double *x = malloc((n + 1) * sizeof *x);
        int *previous = malloc((n + 1) * sizeof *previous);
        double level = 0.0;
        for (int i = 0; i < n; i++) {
            if (rand() % 50 == 0)
                level += rand() % 7 - 3;
            x[i] = level + (rand() % 1000) / 500.0 - 1.0;
            if (trial % 3 == 0)
                x[i] = (int)x[i];
        }
        if (l2_search(x, n, 1.0 + rand() % 20, min_size, previous) != 0) {
            printf("trial %d: the search failed\n", trial);
            return 1;
        }
        for (int t = 0; t <= n; t++, checked++)
            if (previous[t] < 0 || previous[t] > t) {
                printf("trial %d: previous[%d] = %d\n", trial, t, previous[t]);
                return 1;
            }
        free(x);
        free(previous);
    }
    printf("checked %ld\n", checked);
    return 0;
}
