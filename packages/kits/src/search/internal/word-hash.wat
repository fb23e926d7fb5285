;; The block loop of the word hash of the vector stream (word-hash.ts, format version 2): 16 lanes of
;; 32 bits, lane j taking the little-endian words j, j + 16, j + 32, ... of the input, each word w folded
;; into its lane v as v = rotl(v + w * P2, 13) * P1 (mod 2^32; XXH32's round). One 64-byte block feeds one
;; word to every lane, four lanes per i32x4. The tail (under 64 bytes) and the final mix are done in
;; JavaScript (word-hash.ts), which also has the plain loop this one must agree with.
;;
;; Build: `pnpm build:wasm` (scripts/build-wasm.mjs, with the `wabt` package) writes word-hash-wasm.ts.
(module
  (import "env" "memory" (memory 1))
  ;; update(data, blocks, state): folds the `blocks` 64-byte blocks at byte `data` into the 16 lanes
  ;; (16 u32, 64 bytes) at byte `state`, which it reads first and writes back at the end.
  (func (export "update") (param $data i32) (param $blocks i32) (param $state i32)
    (local $end i32) (local $p1 v128) (local $p2 v128) (local $t v128)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $p1 (i32x4.splat (i32.const 0x9e3779b1)))
    (local.set $p2 (i32x4.splat (i32.const 0x85ebca77)))
    (local.set $a (v128.load offset=0 (local.get $state)))
    (local.set $b (v128.load offset=16 (local.get $state)))
    (local.set $c (v128.load offset=32 (local.get $state)))
    (local.set $d (v128.load offset=48 (local.get $state)))
    (local.set $end (i32.add (local.get $data) (i32.shl (local.get $blocks) (i32.const 6))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $data) (local.get $end)))
        (local.set $t (i32x4.add (local.get $a)
          (i32x4.mul (v128.load offset=0 (local.get $data)) (local.get $p2))))
        (local.set $a (i32x4.mul (local.get $p1)
          (v128.or (i32x4.shl (local.get $t) (i32.const 13)) (i32x4.shr_u (local.get $t) (i32.const 19)))))
        (local.set $t (i32x4.add (local.get $b)
          (i32x4.mul (v128.load offset=16 (local.get $data)) (local.get $p2))))
        (local.set $b (i32x4.mul (local.get $p1)
          (v128.or (i32x4.shl (local.get $t) (i32.const 13)) (i32x4.shr_u (local.get $t) (i32.const 19)))))
        (local.set $t (i32x4.add (local.get $c)
          (i32x4.mul (v128.load offset=32 (local.get $data)) (local.get $p2))))
        (local.set $c (i32x4.mul (local.get $p1)
          (v128.or (i32x4.shl (local.get $t) (i32.const 13)) (i32x4.shr_u (local.get $t) (i32.const 19)))))
        (local.set $t (i32x4.add (local.get $d)
          (i32x4.mul (v128.load offset=48 (local.get $data)) (local.get $p2))))
        (local.set $d (i32x4.mul (local.get $p1)
          (v128.or (i32x4.shl (local.get $t) (i32.const 13)) (i32x4.shr_u (local.get $t) (i32.const 19)))))
        (local.set $data (i32.add (local.get $data) (i32.const 64)))
        (br $next)))
    (v128.store offset=0 (local.get $state) (local.get $a))
    (v128.store offset=16 (local.get $state) (local.get $b))
    (v128.store offset=32 (local.get $state) (local.get $c))
    (v128.store offset=48 (local.get $state) (local.get $d)))
)
