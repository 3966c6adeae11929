(module
  ;; The provenance mark's inner loop (embed.ts holds the method and drives it), four samples at a
  ;; time with WebAssembly SIMD: each sample gets gain x the pattern table's next value; the gain
  ;; follows the speech level in blocks of 16 samples of the stream, from every fourth sample of
  ;; the blocks before, so any chunking of a stream gives the same samples.
  ;; Assembled by `npm run wasm` (scripts/gen-marker-wasm.mjs) into marker-wasm.ts.
  ;; State at bytes 0..31: table index i32 @0, samples left in the gain block i32 @4, level f64 @8,
  ;; the block's sum of squares f64 @16, gain f64 @24. Table and chunk are f32 arrays at byte
  ;; offsets in this memory.
  (memory (export "memory") 1)
  (func (export "mark") (param $chunk i32) (param $n i32) (param $table i32) (param $tableLen i32) (param $strength f64) (param $smoothing f64)
    (local $index i32) (local $until i32) (local $level f64) (local $sum f64) (local $gain f64)
    (local $i i32) (local $end i32) (local $stop i32) (local $run i32) (local $g4 v128)
    (local $x v128) (local $p i32) (local $t i32) (local $xs f32)
    (local.set $index (i32.load (i32.const 0)))
    (local.set $until (i32.load (i32.const 4)))
    (local.set $level (f64.load (i32.const 8)))
    (local.set $sum (f64.load (i32.const 16)))
    (local.set $gain (f64.load (i32.const 24)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        ;; A new gain block: the level from the block before.
        (if (i32.eqz (local.get $until))
          (then
            (local.set $level (f64.add (local.get $level)
              (f64.mul (local.get $smoothing) (f64.sub (f64.div (local.get $sum) (f64.const 4)) (local.get $level)))))
            (local.set $sum (f64.const 0))
            (local.set $gain (f64.mul (local.get $strength) (f64.sqrt (local.get $level))))
            (local.set $until (i32.const 16))))
        ;; end = min(n, i + until)
        (local.set $end (i32.add (local.get $i) (local.get $until)))
        (if (i32.gt_u (local.get $end) (local.get $n)) (then (local.set $end (local.get $n))))
        ;; The level from every fourth sample at the block's own offsets 0, 4, 8, 12 (unmarked).
        (local.set $p (i32.add (local.get $i) (i32.and (i32.sub (i32.const 0) (i32.sub (i32.const 16) (local.get $until))) (i32.const 3))))
        (block $l_done
          (loop $l
            (br_if $l_done (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $xs (f32.load (i32.add (local.get $chunk) (i32.shl (local.get $p) (i32.const 2)))))
            (local.set $sum (f64.add (local.get $sum) (f64.mul (f64.promote_f32 (local.get $xs)) (f64.promote_f32 (local.get $xs)))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $l)))
        (local.set $until (i32.sub (local.get $until) (i32.sub (local.get $end) (local.get $i))))
        (local.set $g4 (f32x4.splat (f32.demote_f64 (local.get $gain))))
        ;; Runs that stop at the block's end or the table's end.
        (block $seg_done
          (loop $segs
            (br_if $seg_done (i32.ge_u (local.get $i) (local.get $end)))
            (local.set $stop (i32.add (local.get $i) (i32.sub (local.get $tableLen) (local.get $index))))
            (if (i32.gt_u (local.get $stop) (local.get $end)) (then (local.set $stop (local.get $end))))
            (local.set $run (i32.sub (local.get $stop) (local.get $i)))
            ;; Four at a time.
            (block $v_done
              (loop $v
                (br_if $v_done (i32.lt_s (i32.sub (local.get $stop) (local.get $i)) (i32.const 4)))
                (local.set $p (i32.add (local.get $chunk) (i32.shl (local.get $i) (i32.const 2))))
                (local.set $t (i32.add (local.get $table) (i32.shl (local.get $index) (i32.const 2))))
                (local.set $x (v128.load (local.get $p)))
                (v128.store (local.get $p) (f32x4.add (local.get $x) (f32x4.mul (local.get $g4) (v128.load (local.get $t)))))
                (local.set $i (i32.add (local.get $i) (i32.const 4)))
                (local.set $index (i32.add (local.get $index) (i32.const 4)))
                (br $v)))
            ;; The rest one by one.
            (block $s_done
              (loop $s
                (br_if $s_done (i32.ge_u (local.get $i) (local.get $stop)))
                (local.set $p (i32.add (local.get $chunk) (i32.shl (local.get $i) (i32.const 2))))
                (local.set $xs (f32.load (local.get $p)))
                (f32.store (local.get $p) (f32.add (local.get $xs)
                  (f32.mul (f32.demote_f64 (local.get $gain)) (f32.load (i32.add (local.get $table) (i32.shl (local.get $index) (i32.const 2)))))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (local.set $index (i32.add (local.get $index) (i32.const 1)))
                (br $s)))
            (if (i32.eq (local.get $index) (local.get $tableLen)) (then (local.set $index (i32.const 0))))
            (br $segs)))
        (br $blocks)))
    (i32.store (i32.const 0) (local.get $index))
    (i32.store (i32.const 4) (local.get $until))
    (f64.store (i32.const 8) (local.get $level))
    (f64.store (i32.const 16) (local.get $sum))
    (f64.store (i32.const 24) (local.get $gain))))
