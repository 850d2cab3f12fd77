/* The threshold verdicts of one series in one walk, for perfgate.detect.threshold_verdicts.
 *
 * Each value is judged against the last m values before it that raised no alert, and joins them
 * when it raises none: a sequential rule, which numpy can only follow in passes that restart after
 * every alert (about 16 passes on 1,000 values of 2% noise under the default t-test, 50 numpy
 * calls each).  Here each baseline's mean and deviation are computed afresh from its values, as
 * threshold_verdicts.window_limits computes them (about its first value, so that equal values
 * have exactly no spread): m operations a value, no running sum to drift.  Plain C with no Python
 * API, loaded with ctypes; setuptools builds it as an optional extension (pyproject.toml).
 */
#include <math.h>

enum { PERCENTAGE = 0, Z_SCORE = 1, T_TEST = 2, LOG_NORMAL = 3 };
enum { LOWER = 1, UPPER = 2 };   /* the sides with a boundary (a bit each), and an alert's side */

/* The limits the baseline b[0..n) sets (n >= 1), as threshold_verdicts._limits computes them from its
 * mean and variance: 0 where it sets none.  For log_normal, b holds the baseline's logarithms (NAN for
 * a value that is not positive, which has none).  q_low[df] and q_high[df] are the quantiles of the
 * lower and upper boundary at df = max(n - 1, 1) degrees of freedom (the boundaries themselves for
 * percentage; one quantile repeated for z_score and log_normal). */
static int limits(const double *b, int n, int kind, int sides, const double *q_low, const double *q_high,
                  double *lower, double *upper)
{
    double ref = b[0];
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        if (isnan(b[j]))        /* a non-positive value under log_normal: no logarithm, no limits */
            return 0;
        sum += b[j] - ref;
    }
    double mean = ref + sum / n;
    if (!isfinite(mean))
        return 0;
    int df = n > 1 ? n - 1 : 1;
    double lo = NAN, hi = NAN;
    if (kind == PERCENTAGE) {
        lo = mean - mean * q_low[df];
        hi = mean + mean * q_high[df];
    } else {
        double squares = 0.0;
        for (int j = 0; j < n; j++) {
            double d = b[j] - mean;
            squares += d * d;
        }
        double var = squares / df;
        if (!isfinite(var) || !(var > 0))       /* no spread: no limits, as in Bencher */
            return 0;
        double s = sqrt(var);
        if (kind == LOG_NORMAL) {
            double base = exp(mean);
            if (!isfinite(base))
                return 0;
            lo = 2 * base - exp(mean + q_low[df] * s);
            hi = exp(mean + q_high[df] * s);
        } else {
            if (kind == T_TEST)
                s = s * sqrt(1 + 1.0 / n);
            lo = mean - q_low[df] * s;
            hi = mean + q_high[df] * s;
        }
    }
    /* a side's limit that is not finite leaves the baseline with no limits at all */
    if (((sides & LOWER) && !isfinite(lo)) || ((sides & UPPER) && !isfinite(hi)))
        return 0;
    *lower = lo;
    *upper = hi;
    return 1;
}

/* The logarithm log_normal's baseline is computed in: NAN for a value that is not positive. */
static double log_of(double x)
{
    return x > 0 ? log(x) : NAN;
}

/* Judges values[0..n) in turn.  clean holds the values that raised no alert before them: its first
 * count values are given (the last m of an earlier judgement, or none), and it has room for n more;
 * under log_normal, logs has as much room, for their logarithms (each taken once, as the value
 * joins, not once for each of the m baselines it is in); the other tests pass NULL.  A baseline of
 * fewer than least values sets no limits.  Writes each value's alert to alerts[i] (0, LOWER or
 * UPPER: the lower limit is checked first, as Bencher does) and returns how many values clean holds
 * at the end. */
int threshold_walk(const double *values, int n, double *clean, int count, int m, int least, int kind, int sides,
                   const double *q_low, const double *q_high, signed char *alerts, double *logs)
{
    const double *base = kind == LOG_NORMAL ? logs : clean;
    if (kind == LOG_NORMAL)
        for (int j = 0; j < count; j++)
            logs[j] = log_of(clean[j]);
    for (int i = 0; i < n; i++) {
        int size = count < m ? count : m;
        double lower, upper;
        int alert = 0;
        if (size >= least && size >= 1 && limits(base + count - size, size, kind, sides, q_low, q_high, &lower, &upper)) {
            if ((sides & LOWER) && values[i] < lower)
                alert = LOWER;
            else if ((sides & UPPER) && values[i] > upper)
                alert = UPPER;
        }
        alerts[i] = (signed char)alert;
        if (!alert) {
            if (kind == LOG_NORMAL)
                logs[count] = log_of(values[i]);
            clean[count++] = values[i];
        }
    }
    return count;
}
