/*
 * The C reference of bench/search (vector section): the exact top-1 scan of N vectors of D float32
 * against Q queries, timed in CPU time, fastest of 5 rounds. Compiled by the bench with the system `cc -O3`
 * (no -march, no -ffast-math: what a portable build does). Prints one JSON line of vectors per second.
 *
 *   float: the plain C loop, 8 float accumulators (the compiler vectorizes them 4 floats wide);
 *   double: VectorSearch's arithmetic (float32 products summed in float64, its order), for comparison.
 *
 * Usage: dot N D Q
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static float dot_float(const float *q, const float *d, int n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (int j = 0; j < n; j += 8) {
    s0 += q[j] * d[j];
    s1 += q[j + 1] * d[j + 1];
    s2 += q[j + 2] * d[j + 2];
    s3 += q[j + 3] * d[j + 3];
    s4 += q[j + 4] * d[j + 4];
    s5 += q[j + 5] * d[j + 5];
    s6 += q[j + 6] * d[j + 6];
    s7 += q[j + 7] * d[j + 7];
  }
  return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

static double dot_double(const float *q, const float *d, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int j = 0; j < n; j += 8) {
    s0 += (double)q[j] * d[j] + (double)q[j + 4] * d[j + 4];
    s1 += (double)q[j + 1] * d[j + 1] + (double)q[j + 5] * d[j + 5];
    s2 += (double)q[j + 2] * d[j + 2] + (double)q[j + 6] * d[j + 6];
    s3 += (double)q[j + 3] * d[j + 3] + (double)q[j + 7] * d[j + 7];
  }
  return (s0 + s1) + (s2 + s3);
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  long n = atol(argv[1]);
  int d = atoi(argv[2]), queries = atoi(argv[3]);
  if (n < 1 || d < 8 || d % 8 != 0 || queries < 1) return 2;
  float *data = malloc(sizeof(float) * n * d), *q = malloc(sizeof(float) * d * queries);
  if (!data || !q) return 3;
  unsigned state = 42;
  for (long i = 0; i < n * d; i++) {
    state = state * 1103515245u + 12345u;
    data[i] = (float)((state >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  for (long i = 0; i < (long)d * queries; i++) {
    state = state * 1103515245u + 12345u;
    q[i] = (float)((state >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  double best[2] = {1e30, 1e30}, sink = 0;
  for (int round = 0; round < 5; round++) {
    for (int variant = 0; variant < 2; variant++) {
      double start = cpu_seconds();
      for (int k = 0; k < queries; k++) {
        double top = -1e30;
        for (long r = 0; r < n; r++) {
          double s = variant == 0 ? dot_float(q + (long)k * d, data + r * d, d) : dot_double(q + (long)k * d, data + r * d, d);
          if (s > top) top = s;
        }
        sink += top;
      }
      double elapsed = cpu_seconds() - start;
      if (elapsed < best[variant]) best[variant] = elapsed;
    }
  }
  printf("{\"float\":%.0f,\"double\":%.0f,\"sink\":%g}\n", n * (double)queries / best[0], n * (double)queries / best[1], sink);
  return 0;
}
