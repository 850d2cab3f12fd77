/* Drives src/perfgate/detect/_threshold_walk.c over random series (lengths 1-299, baselines of 1 to
 * 80 values, each test kind and side, a baseline given or none; values with exact ties, spikes,
 * zeros and negatives, and some near the largest double) for tests/test_threshold_verdicts.py,
 * which builds it with AddressSanitizer and UndefinedBehaviorSanitizer: any out-of-bounds access,
 * leak or undefined operation aborts the run.  The walk's own accounting is checked too: the values
 * that raised no alert are those it kept, in order, and under log_normal (kind 3) the logarithms it
 * kept are theirs (NAN where a value has none). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int threshold_walk(const double *values, int n, double *clean, int count, int m, int least, int kind, int sides,
                   const double *q_low, const double *q_high, signed char *alerts, double *logs);

static double value(int trial)
{
    switch (trial % 4) {
    case 0: return 100.0 * exp(0.05 * (rand() / (double)RAND_MAX - 0.5)) * (rand() % 20 == 0 ? 1.5 : 1.0);
    case 1: return rand() % 3;                              /* ties: baselines with no spread */
    case 2: return rand() % 5 - 1.0;                        /* zeros and negatives: no logarithm */
    default: return 1e308 * (rand() / (double)RAND_MAX);    /* sums past the largest double */
    }
}

int main(void)
{
    srand(16);
    long checked = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int n = 1 + rand() % 299, m = 1 + rand() % 80, given = rand() % 2 ? rand() % (m + 1) : 0;
        int kind = rand() % 4, sides = 1 + rand() % 3, least = 1 + rand() % 6;
        double *values = malloc(n * sizeof *values), *clean = malloc((given + n) * sizeof *clean);
        double *logs = kind == 3 ? malloc((given + n) * sizeof *logs) : NULL;   /* the others pass none */
        double *q_low = malloc((m + 1) * sizeof *q_low), *q_high = malloc((m + 1) * sizeof *q_high);
        signed char *alerts = malloc(n);
        for (int i = 0; i < n; i++)
            values[i] = value(trial);
        for (int i = 0; i < given; i++)
            clean[i] = value(trial);
        for (int df = 0; df <= m; df++) {
            q_low[df] = sides & 1 ? 0.5 + 3.0 / (df + 1) : NAN;
            q_high[df] = sides & 2 ? 0.5 + 3.0 / (df + 1) : NAN;
        }
        int count = threshold_walk(values, n, clean, given, m, least, kind, sides, q_low, q_high, alerts, logs);
        int kept = given;
        for (int i = 0; i < n; i++, checked++) {
            if (alerts[i] < 0 || alerts[i] > 2 || (alerts[i] && !(alerts[i] & sides))) {
                printf("trial %d, value %d: alert %d with sides %d\n", trial, i, alerts[i], sides);
                return 1;
            }
            if (!alerts[i] && clean[kept++] != values[i]) {
                printf("trial %d, value %d: not kept in order\n", trial, i);
                return 1;
            }
        }
        if (count != kept) {
            printf("trial %d: the walk kept %d values, not %d\n", trial, count, kept);
            return 1;
        }
        for (int j = 0; kind == 3 && j < count; j++) {
            double want = clean[j] > 0 ? log(clean[j]) : NAN;
            if (!(logs[j] == want || (isnan(logs[j]) && isnan(want)))) {
                printf("trial %d: the logarithm of kept value %d is %g, not %g\n", trial, j, logs[j], want);
                return 1;
            }
        }
        free(values);
        free(clean);
        free(logs);
        free(q_low);
        free(q_high);
        free(alerts);
    }
    printf("checked %ld values\n", checked);
    return 0;
}
