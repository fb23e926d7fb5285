;; The quantized scoring kernel of VectorSearch (`precision: 'int8'`): WebAssembly SIMD over int8 lanes.
;; For each row of `dims` int8 values it computes the exact integer dot product with the int8 query:
;; each 16-lane step multiplies to int16 (i16x8.extmul, exact: |a * b| <= 16384) and adds pairs to int32
;; (i32x4.extadd_pairwise). A row sum stays below 2^31 for dims <= 65536 (16384 * 65536 = 2^30).
;; The JavaScript fallback (`int8DotAll` in vector-int8.ts) computes the same integers.
;;
;; Build: `pnpm build:wasm` (scripts/build-wasm.mjs, with the `wabt` package) writes dot-i8x16-wasm.ts.
(module
  (import "env" "memory" (memory 1))
  ;; scores(data, count, dims, query, out): for each of `count` rows of `dims` int8 at byte `data`, the
  ;; int32 dot product with the `dims` int8 at byte `query`, written as int32 at byte `out`.
  ;; `dims` is a positive multiple of 16.
  (func (export "scores")
    (param $data i32) (param $count i32) (param $dims i32) (param $query i32) (param $out i32)
    (local $row i32) (local $j i32) (local $dp i32) (local $qp i32)
    (local $acc v128) (local $x v128) (local $q v128)
    (local.set $dp (local.get $data))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $count)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $qp (local.get $query))
        (local.set $j (i32.const 0))
        (loop $columns
          (local.set $x (v128.load (local.get $dp)))
          (local.set $q (v128.load (local.get $qp)))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.add
                (i32x4.extadd_pairwise_i16x8_s (i16x8.extmul_low_i8x16_s (local.get $x) (local.get $q)))
                (i32x4.extadd_pairwise_i16x8_s (i16x8.extmul_high_i8x16_s (local.get $x) (local.get $q))))))
          (local.set $dp (i32.add (local.get $dp) (i32.const 16)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 16)))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $columns (i32.lt_u (local.get $j) (local.get $dims))))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows))))
)
