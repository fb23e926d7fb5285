;; The exact scoring kernel of VectorSearch: WebAssembly SIMD with two float64 lanes, computing the very
;; same sums as the JavaScript loop `scoreAllBy8` in vector-math.ts, in the same order, so the scores are
;; bit-for-bit the same:
;;
;;   s0 += q[j] * d[j] + q[j + 4] * d[j + 4]        lane 0 of $a
;;   s1 += q[j + 1] * d[j + 1] + q[j + 5] * d[j + 5]  lane 1 of $a
;;   s2 += q[j + 2] * d[j + 2] + q[j + 6] * d[j + 6]  lane 0 of $b
;;   s3 += q[j + 3] * d[j + 3] + q[j + 7] * d[j + 7]  lane 1 of $b
;;   score = (s0 + s1) + (s2 + s3)
;;
;; Each data value is a float32 widened to float64 (exact), the query is already float64 (the widened
;; float32 query), so each product of two 24-bit significands is exact in float64, and every addition is
;; the float64 addition JavaScript does. No fused multiply-add, no reassociation.
;;
;; Build: `pnpm build:wasm` (scripts/build-wasm.mjs, with the `wabt` package) writes dot-f64x2-wasm.ts.
(module
  (import "env" "memory" (memory 1))
  ;; scores(data, count, dims, query, out): for each of `count` rows of `dims` float32 at byte `data`,
  ;; the float64 dot product with the `dims` float64 at byte `query`, written as float64 at byte `out`.
  ;; `dims` is a positive multiple of 8.
  (func (export "scores")
    (param $data i32) (param $count i32) (param $dims i32) (param $query i32) (param $out i32)
    (local $row i32) (local $j i32) (local $dp i32) (local $qp i32)
    (local $a v128) (local $b v128) (local $x v128) (local $y v128)
    (local.set $dp (local.get $data))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $count)))
        (local.set $a (v128.const f64x2 0 0))
        (local.set $b (v128.const f64x2 0 0))
        (local.set $qp (local.get $query))
        (local.set $j (i32.const 0))
        (loop $columns
          ;; $x = d[j .. j + 3], $y = d[j + 4 .. j + 7]
          (local.set $x (v128.load (local.get $dp)))
          (local.set $y (v128.load offset=16 (local.get $dp)))
          (local.set $a
            (f64x2.add (local.get $a)
              (f64x2.add
                (f64x2.mul (v128.load (local.get $qp)) (f64x2.promote_low_f32x4 (local.get $x)))
                (f64x2.mul (v128.load offset=32 (local.get $qp)) (f64x2.promote_low_f32x4 (local.get $y))))))
          (local.set $b
            (f64x2.add (local.get $b)
              (f64x2.add
                (f64x2.mul (v128.load offset=16 (local.get $qp))
                  (f64x2.promote_low_f32x4
                    (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $x) (local.get $x))))
                (f64x2.mul (v128.load offset=48 (local.get $qp))
                  (f64x2.promote_low_f32x4
                    (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $y) (local.get $y)))))))
          (local.set $dp (i32.add (local.get $dp) (i32.const 32)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 64)))
          (local.set $j (i32.add (local.get $j) (i32.const 8)))
          (br_if $columns (i32.lt_u (local.get $j) (local.get $dims))))
        (f64.store (local.get $out)
          (f64.add
            (f64.add (f64x2.extract_lane 0 (local.get $a)) (f64x2.extract_lane 1 (local.get $a)))
            (f64.add (f64x2.extract_lane 0 (local.get $b)) (f64x2.extract_lane 1 (local.get $b)))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows))))
)
