//! `mma.sp` / `mma.sp::ordered_metadata` (§9.7.14.6) on the interpreter: a whole warp loads its
//! compressed A, B, C and metadata from global memory, runs the instruction and stores D.
//!
//! The expected D is computed here independently: a dense A with the form's structured
//! sparsity is chosen, D = A·B + C in plain integer arithmetic (f16/tf32 with small integers,
//! exact in any rounding), and the operands are placed in lanes by the manual's fragment
//! formulas as written in the comments. The metadata register of each lane is written from the
//! reading of the figures that `spec/INTERPRETATIONS.md` ("sparse mma metadata") records: for
//! f16/bf16/tf32 the `j`-th metadata thread of a group of four describes four consecutive
//! blocks of K per row, row `groupID` in bits 15..0 and row `groupID + 8` in bits 31..16, block
//! `b` of its run in bits `4b+3..4b`; for 8- and 4-bit A (measured on an H200, "H200 tensor-core
//! findings") thread `j = 2q + r` describes blocks `8q..8q+7` of row `groupID + 8r`; the first
//! stored element's index in the low two bits.

use oracle::launch::{self, LaunchFile};

/// Runs `body` on one warp (on `target`) with `in` = `input` and a zeroed `out`; `%rd4` and
/// `%rd5` are this lane's blocks of `words` words in `in` and `out`.
fn run(target: &str, words: u32, body: &str, input: &[u8]) -> Result<Vec<u32>, oracle::error::Error> {
    let ptx = format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         .reg .b32 %r<80>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %r0, %tid.x;\n\
         mul.wide.u32 %rd6, %r0, {};\nadd.s64 %rd4, %rd1, %rd6;\nadd.s64 %rd5, %rd2, %rd6;\n{body}\nret;\n}}\n",
        4 * words
    );
    let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
    let l: LaunchFile = serde_json::from_value(serde_json::json!({
        "ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
        "buffers": [{"name": "in", "hex": hex}, {"name": "out", "size": input.len()}],
        "params": [{"buffer": "in"}, {"buffer": "out"}],
        "limits": {"steps": 1_000_000, "stack": 1024},
        // The manual's forms ptxas 12.9 refuses run too.
        "grammar": "manual",
    }))
    .unwrap();
    launch::run(&l, &ptx).map(|(b, _)| {
        b[1].1
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    })
}

fn regs(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|k| format!("%r{k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A dense A, its compressed form and its index fields, by row.
type SparseA = (Vec<Vec<i64>>, Vec<Vec<i64>>, Vec<Vec<u32>>);

/// One test case: a form, its register counts and the per-lane register words.
struct Case {
    /// The instruction, without operands.
    name: &'static str,
    target: String,
    /// Registers of A, B, C, D.
    na: usize,
    nb: usize,
    nc: usize,
    nd: usize,
    /// Per lane: A, B, C words, then the metadata word.
    lanes: Vec<Vec<u32>>,
    /// The selector operand as written (`0`, `%r70`, ...), and a prelude setting it.
    f: String,
    prelude: String,
    /// A block-scaled form: the selectors `{byte-id-a, thread-id-a}` and `{byte-id-b,
    /// thread-id-b}`; each lane's words then end with `scale-a-data` and `scale-b-data`.
    scaled: Option<[(u16, u16); 2]>,
}

impl Case {
    /// A case on `target` with A, B, C, D in `regs` registers, the selector the constant `f`,
    /// no prelude, not block-scaled.
    fn new(name: &'static str, target: &str, regs: [usize; 4], lanes: Vec<Vec<u32>>, f: impl ToString) -> Case {
        let [na, nb, nc, nd] = regs;
        Case {
            name,
            target: target.into(),
            na,
            nb,
            nc,
            nd,
            lanes,
            f: f.to_string(),
            prelude: String::new(),
            scaled: None,
        }
    }

    /// Runs the case; D's words per lane.
    fn run(&self) -> Result<Vec<Vec<u32>>, oracle::error::Error> {
        let words = self.na + self.nb + self.nc + 1 + if self.scaled.is_some() { 2 } else { 0 };
        let mut input = Vec::new();
        for l in &self.lanes {
            assert_eq!(l.len(), words);
            for w in l {
                input.extend(w.to_le_bytes());
            }
        }
        let loads: String = (0..words)
            .map(|k| format!("ld.global.b32 %r{}, [%rd4+{}];\n", k + 1, 4 * k))
            .collect();
        let (a, b, c) = (1, 1 + self.na, 1 + self.na + self.nb);
        let e = c + self.nc;
        let d = 40;
        let stores: String = (0..self.nd)
            .map(|k| format!("st.global.b32 [%rd5+{}], %r{};\n", 4 * k, d + k))
            .collect();
        // `d, a, b, c, e, f, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {...}`
        // (L24431-24449).
        let scales = match self.scaled {
            Some([(ba, ta), (bb, tb)]) => format!(", %r{}, {{{ba}, {ta}}}, %r{}, {{{bb}, {tb}}}", e + 1, e + 2),
            None => String::new(),
        };
        let body = format!(
            "{loads}{}{} {{{}}}, {{{}}}, {{{}}}, {{{}}}, %r{e}, {}{scales};\n{stores}",
            self.prelude,
            self.name,
            regs(d, self.nd),
            regs(a, self.na),
            regs(b, self.nb),
            regs(c, self.nc),
            self.f
        );
        let out = run(&self.target, words as u32, &body, &input)?;
        Ok((0..32).map(|l| out[l * words..l * words + self.nd].to_vec()).collect())
    }
}

/// A dense 16×K A with 2:4 (`block` 4, `keep` 2), 1:2 (2, 1) or pairwise 4:8 (8, 4) sparsity:
/// `pattern(row, block)` picks the kept positions' pattern, `val(row, col)` the values.
/// Returns the dense matrix, the compressed one (16 × K/2) and each (row, block)'s index field.
fn sparse_a(k: usize, block: usize, ordered: bool, val: impl Fn(usize, usize) -> i64) -> SparseA {
    // Index pairs in stored order; plain `.sp` (not fp8) may also store a descending pair.
    let pairs: &[(usize, usize)] = if ordered {
        &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    } else {
        &[(0, 1), (2, 0), (0, 3), (3, 1), (1, 2), (2, 3), (1, 0), (3, 2)]
    };
    let mut dense = vec![vec![0; k]; 16];
    let mut comp = vec![Vec::new(); 16];
    let mut fields = vec![Vec::new(); 16];
    for r in 0..16 {
        for b in 0..k / block {
            let (lo, hi) = pairs[(r * 5 + b * 3 + b / 4) % pairs.len()];
            // tf32: 0b0100 keeps element 0, 0b1110 element 1 (L23804).
            let (positions, field): (Vec<usize>, u32) = match block {
                2 => {
                    let p = (r + b) % 2;
                    (vec![p], if p == 0 { 0b0100 } else { 0b1110 })
                }
                4 => (vec![lo, hi], (hi << 2 | lo) as u32),
                _ => (vec![2 * lo, 2 * lo + 1, 2 * hi, 2 * hi + 1], (hi << 2 | lo) as u32),
            };
            for p in positions {
                let v = val(r, b * block + p);
                dense[r][b * block + p] = v;
                comp[r].push(v);
            }
            fields[r].push(field);
        }
    }
    (dense, comp, fields)
}

/// The metadata word of `lane` for selector `f` with `threads` metadata threads per group of
/// four: see the module comment. `one_row`: the 8- and 4-bit layout measured on an H200
/// (`corpus/findings/h200/tensor-cores.md`): the selected thread `j = 2q + r` holds blocks
/// `8q..8q+7` of row `g + 8r`, block `8q + b` in bits `4b+3..4b`.
fn meta(lane: usize, f: usize, threads: usize, fields: &[Vec<u32>], one_row: bool) -> u32 {
    let (g, t) = (lane / 4, lane % 4);
    if t / threads != f {
        // Not a metadata thread under this selector: its bits are ignored (invalid on purpose).
        return 0;
    }
    let j = t % threads;
    let mut w = 0u32;
    if one_row {
        let (q, r) = (j / 2, j % 2);
        for b in 0..8 {
            w |= fields[g + 8 * r][8 * q + b] << (4 * b);
        }
        return w;
    }
    for half in 0..2 {
        for b in 0..4 {
            w |= fields[g + 8 * half][4 * j + b] << (16 * half + 4 * b);
        }
    }
    w
}

/// D per lane of the C/D layout of every m16n8 shape (L22485-22488): element i is row
/// g + 8·(i/2), column 2t + (i%2).
fn d_at(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

fn product(
    a: &[Vec<i64>],
    b: impl Fn(usize, usize) -> i64,
    c: impl Fn(usize, usize) -> i64,
    r: usize,
    n: usize,
) -> i64 {
    c(r, n) + (0..a[r].len()).map(|k| a[r][k] * b(k, n)).sum::<i64>()
}

fn pack8(v: impl Iterator<Item = i64>) -> u32 {
    v.enumerate().fold(0, |w, (i, x)| w | (x as u8 as u32) << (8 * i))
}

fn pack4(v: impl Iterator<Item = i64>) -> u32 {
    v.enumerate().fold(0, |w, (i, x)| w | ((x as u32) & 0xf) << (4 * i))
}

/// f16 of a small integer (|v| < 2048), by sign, exponent and mantissa.
fn f16(v: i64) -> u32 {
    if v == 0 {
        return 0;
    }
    let (s, m) = (u32::from(v < 0), v.unsigned_abs() as u32);
    let e = 31 - m.leading_zeros();
    s << 15 | (e + 15) << 10 | (m << (10 - e)) & 0x3ff
}

/// s8 `m16n8k32` (§9.7.14.6.2.5): A is 2 registers of 4 bytes, byte i (0..8) at row
/// g + 8·(i/4) and compressed column 4t + i%4 (L24136-24147: columns 8t..8t+7 of the dense
/// row); B and C/D as dense `m16n8k32` (L24149): B byte i (0..8) at row 4t + i%4 + 16·(i/4),
/// column g (L22443-22446).
fn s8_k32(name: &'static str, ordered: bool, f: usize) -> (Case, Vec<Vec<i64>>) {
    let (dense, comp, fields) = sparse_a(32, 4, ordered, |r, c| ((r * 7 + c * 3) % 23) as i64 - 11);
    let b = |r: usize, c: usize| ((r * 5 + c * 11) % 19) as i64 - 9;
    let c = |r: usize, c: usize| (r as i64 * 1000) - (c as i64 * 77);
    let lanes = (0..32)
        .map(|lane| {
            let (g, t) = (lane / 4, lane % 4);
            let mut w = Vec::new();
            for reg in 0..2 {
                w.push(pack8((0..4).map(|i| comp[g + 8 * reg][4 * t + i])));
            }
            for reg in 0..2 {
                w.push(pack8((0..4).map(|i| b(4 * t + i + 16 * reg, g))));
            }
            for i in 0..4 {
                let (r, n) = d_at(lane, i);
                w.push(c(r, n) as i32 as u32);
            }
            w.push(meta(lane, f, 2, &fields, true));
            w
        })
        .collect();
    let want = (0..32)
        .map(|lane| {
            (0..4)
                .map(|i| {
                    let (r, n) = d_at(lane, i);
                    product(&dense, b, c, r, n)
                })
                .collect()
        })
        .collect();
    let case = Case::new(name, "sm_80", [2, 2, 4, 4], lanes, f);
    (case, want)
}

fn check_ints(case: &Case, want: &[Vec<i64>]) {
    let d = case.run().unwrap_or_else(|e| panic!("{}: {e}", case.name));
    for lane in 0..32 {
        for (i, &w) in want[lane].iter().enumerate() {
            assert_eq!(
                d[lane][i] as i32 as i64, w,
                "{} lane {lane} d{i} (selector {})",
                case.name, case.f
            );
        }
    }
}

#[test]
fn s8_m16n8k32_both_selectors_plain_and_ordered() {
    for (name, ordered) in [
        ("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", false),
        (
            "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
            true,
        ),
    ] {
        for f in 0..2 {
            let (case, want) = s8_k32(name, ordered, f);
            check_ints(&case, &want);
        }
    }
}

/// s4 `m16n8k64`, pairwise 4:8 (§9.7.14.6.2.7): A is 2 registers of 8 nibbles, nibble i (0..16)
/// at row g + 8·(i/8) and compressed column 8t + i%8 (L24279-24290); B as dense `m16n8k64`
/// (L24292): nibble i (0..16) at row 8t + i%8 + 32·(i/8), column g (L22568-22571).
#[test]
fn s4_m16n8k64_pairwise() {
    for (name, ordered) in [
        ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", false),
        (
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32",
            true,
        ),
    ] {
        for f in 0..2 {
            let (dense, comp, fields) = sparse_a(64, 8, ordered, |r, c| ((r * 3 + c * 5) % 15) as i64 - 7);
            let b = |r: usize, c: usize| ((r * 7 + c * 3) % 13) as i64 - 6;
            let c = |r: usize, c: usize| (r as i64 * 31) - (c as i64 * 1000);
            let lanes = (0..32)
                .map(|lane| {
                    let (g, t) = (lane / 4, lane % 4);
                    let mut w = Vec::new();
                    for reg in 0..2 {
                        w.push(pack4((0..8).map(|i| comp[g + 8 * reg][8 * t + i])));
                    }
                    for reg in 0..2 {
                        w.push(pack4((0..8).map(|i| b(8 * t + i + 32 * reg, g))));
                    }
                    for i in 0..4 {
                        let (r, n) = d_at(lane, i);
                        w.push(c(r, n) as i32 as u32);
                    }
                    w.push(meta(lane, f, 2, &fields, true));
                    w
                })
                .collect();
            let want: Vec<Vec<i64>> = (0..32)
                .map(|lane| {
                    (0..4)
                        .map(|i| product(&dense, b, c, d_at(lane, i).0, d_at(lane, i).1))
                        .collect()
                })
                .collect();
            let case = Case::new(name, "sm_80", [2, 2, 4, 4], lanes, f);
            check_ints(&case, &want);
        }
    }
}

/// f16 `m16n8k16` with an f32 accumulator, small integers (exact): A is 2 registers of 2
/// halves, half i (0..4) at row g + 8·(i/2), compressed column 2t + i%2 (L23900-23910: dense
/// columns 4t..4t+3); B as dense `m16n8k16` (L23913): half i at row 2t + i%2 + 8·(i/2),
/// column g (L22109-22115). Every selector 0..3 (one metadata thread, L23798).
#[test]
fn f16_m16n8k16_every_selector() {
    for (name, ordered) in [
        ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false),
        (
            "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            true,
        ),
    ] {
        for f in 0..4 {
            let (dense, comp, fields) = sparse_a(16, 4, ordered, |r, c| ((r + 2 * c) % 5) as i64 - 2);
            let b = |r: usize, c: usize| ((3 * r + c) % 7) as i64 - 3;
            let c = |r: usize, c: usize| (r as i64) - 2 * (c as i64);
            let lanes = (0..32)
                .map(|lane| {
                    let (g, t) = (lane / 4, lane % 4);
                    let mut w = Vec::new();
                    for reg in 0..2 {
                        let h = |i: usize| f16(comp[g + 8 * reg][2 * t + i]);
                        w.push(h(0) | h(1) << 16);
                    }
                    for reg in 0..2 {
                        let h = |i: usize| f16(b(2 * t + i + 8 * reg, g));
                        w.push(h(0) | h(1) << 16);
                    }
                    for i in 0..4 {
                        let (r, n) = d_at(lane, i);
                        w.push((c(r, n) as f32).to_bits());
                    }
                    w.push(meta(lane, f, 1, &fields, false));
                    w
                })
                .collect();
            let case = Case::new(name, "sm_80", [2, 2, 4, 4], lanes, f);
            let d = case.run().unwrap_or_else(|e| panic!("{name}: {e}"));
            for (lane, dl) in d.iter().enumerate() {
                for (i, &di) in dl.iter().enumerate() {
                    let (r, n) = d_at(lane, i);
                    let want = product(&dense, b, c, r, n) as f32;
                    assert_eq!(f32::from_bits(di), want, "{name} lane {lane} d{i} selector {f}");
                }
            }
        }
    }
}

/// tf32 `m16n8k8`, 1:2 (§9.7.14.6.2.4): A is 2 registers, a0 at row g, a1 at row g + 8, both
/// compressed column t (dense columns 2t..2t+1, L24089-24100); B as dense `m16n8k8` tf32
/// (L24102): b0 at row t, b1 at row t + 4, column g. Index fields 0b0100 / 0b1110 (L23804).
#[test]
fn tf32_m16n8k8_one_of_two() {
    let name = "mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
    for f in [0, 3] {
        let (dense, comp, fields) = sparse_a(8, 2, true, |r, c| ((r * 3 + c) % 9) as i64 - 4);
        let b = |r: usize, c: usize| ((r + 5 * c) % 7) as i64 - 3;
        let c = |r: usize, c: usize| (r * c) as i64;
        let lanes = (0..32)
            .map(|lane| {
                let (g, t) = (lane / 4, lane % 4);
                let mut w = vec![(comp[g][t] as f32).to_bits(), (comp[g + 8][t] as f32).to_bits()];
                w.push((b(t, g) as f32).to_bits());
                w.push((b(t + 4, g) as f32).to_bits());
                for i in 0..4 {
                    let (r, n) = d_at(lane, i);
                    w.push((c(r, n) as f32).to_bits());
                }
                w.push(meta(lane, f, 1, &fields, false));
                w
            })
            .collect();
        let case = Case::new(name, "sm_80", [2, 2, 4, 4], lanes, f);
        let d = case.run().unwrap_or_else(|e| panic!("{name}: {e}"));
        for (lane, dl) in d.iter().enumerate() {
            for (i, &di) in dl.iter().enumerate() {
                let (r, n) = d_at(lane, i);
                assert_eq!(
                    f32::from_bits(di),
                    product(&dense, b, c, r, n) as f32,
                    "lane {lane} d{i} selector {f}"
                );
            }
        }
    }
}

/// u8 `m16n8k64`, four metadata threads, selector 0 (L23834): A is 4 registers of 4 bytes,
/// byte i (0..16) at row g + 8·((i/4)%2), compressed column 4t + i%4 + 16·(i/8) (L24191-24202:
/// dense columns 8t..8t+7, +32 for i ≥ 8). B of sparse `m16n8k64` is in figures only
/// (Fig. 131-134, one figure per 16 rows of B): **interpretation** shared with
/// `spec::matrix::layout` (the rule of the text's B formulas, extended): byte i of register r
/// at row 16r + 4t + i%4, column g.
#[test]
fn u8_m16n8k64_four_metadata_threads() {
    let name = "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32";
    let (dense, comp, fields) = sparse_a(64, 4, true, |r, c| ((r * 11 + c * 7) % 200) as i64);
    let b = |k: usize, n: usize| ((k * 3 + n * 5) % 17) as i64;
    let c = |r: usize, n: usize| (r * 8 + n) as i64;
    let lanes = (0..32)
        .map(|lane| {
            let (g, t) = (lane / 4, lane % 4);
            let mut w = Vec::new();
            for reg in 0..4 {
                w.push(pack8(
                    (0..4).map(|i| comp[g + 8 * (reg % 2)][4 * t + i + 16 * (reg / 2)]),
                ));
            }
            for reg in 0..4 {
                w.push(pack8((0..4).map(|i| b(16 * reg + 4 * t + i, g))));
            }
            for i in 0..4 {
                let (r, n) = d_at(lane, i);
                w.push(c(r, n) as u32);
            }
            w.push(meta(lane, 0, 4, &fields, true));
            w
        })
        .collect();
    let want: Vec<Vec<i64>> = (0..32)
        .map(|lane| {
            (0..4)
                .map(|i| product(&dense, b, c, d_at(lane, i).0, d_at(lane, i).1))
                .collect()
        })
        .collect();
    let case = Case {
        name,
        target: "sm_80".into(),
        na: 4,
        nb: 4,
        nc: 4,
        nd: 4,
        lanes,
        f: "0".into(),
        prelude: String::new(),
        scaled: None,
    };
    check_ints(&case, &want);
    // With lanes 0 and 1 exchanging their metadata, D changes: which thread describes which
    // columns is observable.
    let mut moved = Case {
        lanes: case.lanes.clone(),
        ..case
    };
    assert_ne!(moved.lanes[0][12], moved.lanes[1][12]);
    let (m0, m1) = (moved.lanes[0][12], moved.lanes[1][12]);
    (moved.lanes[0][12], moved.lanes[1][12]) = (m1, m0);
    let d = moved.run().unwrap_or_else(|e| panic!("{e}"));
    let same = (0..32).all(|l| (0..4).all(|i| d[l][i] as i32 as i64 == want[l][i]));
    assert!(!same, "exchanging the metadata of T0 and T1 left D unchanged");
}

/// e4m3 of a small integer (|v| < 16), by sign, exponent (bias 7) and mantissa.
fn e4m3(v: i64) -> i64 {
    if v == 0 {
        return 0;
    }
    let (s, m) = (i64::from(v < 0), v.unsigned_abs() as i64);
    let e = 63 - m.leading_zeros() as i64;
    s << 7 | (e + 7) << 3 | (m << (3 - e)) & 7
}

/// Block-scaled sparse fp8 (`mma.sp::ordered_metadata ... .kind::mxf8f6f4.block_scale`,
/// §9.7.14.6.3, sm_120a): the fragments of `u8_m16n8k64_four_metadata_threads` (8-bit
/// elements, the same layouts) holding e4m3 small integers, C small integers in f32, and the
/// scale factors placed by hand from the reading of Figures 42-44 (`spec/INTERPRETATIONS.md`,
/// "block-scale factors over threads"): with `{byte-id-a, thread-id-a} = {1, 1}`, scale_A row
/// g in byte 1 of lane 4g + 2, row g + 8 in byte 1 of lane 4g + 3; with `{byte-id-b,
/// thread-id-b} = {2, 3}`, scale_B column g in byte 2 of lane 4g + 3. Every other byte is
/// 0xff, the ue8m0 NaN: reading a wrong byte would make D NaN. scale_A row r is 2^(r mod 3),
/// scale_B column n 2^-(n mod 2), one block over the whole dense K = 64 (`.scale_vec::1X`,
/// Table 34). D = C + SF_A·SF_B·Σ A·B, exact in f32, computed here in integers.
#[test]
fn e4m3_block_scaled_m16n8k64() {
    let name =
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0";
    let (dense, comp, fields) = sparse_a(64, 4, true, |r, c| ((r * 11 + c * 7) % 7) as i64 + 1);
    let b = |k: usize, n: usize| ((k * 3 + n * 5) % 5) as i64 - 2;
    let c = |r: usize, n: usize| (r * 8 + n) as i64;
    let (sfa, sfb) = (|r: usize| (r % 3) as i32, |n: usize| -((n % 2) as i32));
    let lanes = (0..32)
        .map(|lane| {
            let (g, t) = (lane / 4, lane % 4);
            let mut w = Vec::new();
            for reg in 0..4 {
                w.push(pack8(
                    (0..4).map(|i| e4m3(comp[g + 8 * (reg % 2)][4 * t + i + 16 * (reg / 2)])),
                ));
            }
            for reg in 0..4 {
                w.push(pack8((0..4).map(|i| e4m3(b(16 * reg + 4 * t + i, g)))));
            }
            for i in 0..4 {
                let (r, n) = d_at(lane, i);
                w.push((c(r, n) as f32).to_bits());
            }
            w.push(meta(lane, 0, 4, &fields, true));
            let mut sa = 0xffff_ffffu32;
            if t >= 2 {
                let row = g + 8 * (t - 2);
                sa = sa & !0xff00 | ((127 + sfa(row)) as u32) << 8;
            }
            let sb = if t == 3 {
                0xff00_ffff | ((127 + sfb(g)) as u32) << 16
            } else {
                0xffff_ffff
            };
            w.extend([sa, sb]);
            w
        })
        .collect();
    let case = Case {
        name,
        target: "sm_120a".into(),
        na: 4,
        nb: 4,
        nc: 4,
        nd: 4,
        lanes,
        f: "0".into(),
        prelude: String::new(),
        scaled: Some([(1, 1), (2, 3)]),
    };
    let d = case.run().unwrap_or_else(|e| panic!("{name}: {e}"));
    for (lane, regs) in d.iter().enumerate() {
        for (i, &got) in regs.iter().enumerate() {
            let (r, n) = d_at(lane, i);
            let sum = (0..64).map(|k| dense[r][k] * b(k, n)).sum::<i64>();
            let want = c(r, n) as f64 + sum as f64 * 2f64.powi(sfa(r) + sfb(n));
            assert_eq!(f32::from_bits(got), want as f32, "lane {lane} d{i}: D[{r}][{n}]");
        }
    }
    // f must be 0 with four metadata threads (L23846, L23858; ptxas 12.9: "expected to be 0").
    let e = err(&Case { f: "1".into(), ..case });
    assert!(
        e.contains("sparsity selector 1 is undefined") && e.contains("L23798-23858"),
        "{e}"
    );
}

fn err(case: &Case) -> String {
    match case.run() {
        Ok(_) => panic!("{}: ran, expected a runtime error", case.name),
        Err(e) => {
            assert_eq!(e.kind, oracle::error::ErrorKind::Runtime, "{e}");
            e.to_string()
        }
    }
}

/// Metadata and selectors the manual makes undefined stop the program with the rule's line.
#[test]
fn undefined_metadata_and_selectors_are_runtime_errors() {
    let plain = "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
    let ordered = "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
    // Equal indices (0b0101) in lane 5's bits 19..16: invalid for both (L23778).
    for name in [plain, ordered] {
        let (mut case, _) = s8_k32(name, true, 0);
        case.lanes[5][8] = case.lanes[5][8] & !0xf_0000 | 0b0101 << 16;
        let e = err(&case);
        assert!(
            e.contains("lane 5, metadata bits 19..16 (row 9 of A, columns 16..19)") && e.contains("L23778"),
            "{e}"
        );
    }
    // A descending pair: meaningful for `.sp` (it runs), undefined for ordered metadata (L24481).
    let (mut case, _) = s8_k32(plain, true, 1);
    case.lanes[2][8] = case.lanes[2][8] & !0xf | 0b0001;
    case.run().unwrap_or_else(|e| panic!("{e}"));
    case.name = ordered;
    let e = err(&case);
    assert!(e.contains("lane 2, metadata bits 3..0") && e.contains("L24481"), "{e}");
    // Selector 2 with two metadata threads (L23800).
    let (mut case, _) = s8_k32(plain, false, 0);
    case.f = "2".into();
    let e = err(&case);
    assert!(
        e.contains("sparsity selector 2 is undefined") && e.contains("L23798-23858"),
        "{e}"
    );
    // The selector is a constant (L24479): a register is refused before the program runs.
    let (mut case, _) = s8_k32(plain, false, 0);
    case.f = "%r70".into();
    case.prelude = "and.b32 %r70, %r0, 1;\n".into();
    match case.run() {
        Err(e) if e.kind == oracle::error::ErrorKind::Type => assert!(e.message.contains("must be a constant"), "{e}"),
        other => panic!("expected a type error, got {other:?}"),
    }
    // fp8's plain `.sp` keeps only ascending pairs (L23838).
    let e4m3 = "mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32";
    let lanes = (0..32).map(|l| {
        let mut w = vec![0u32; 13];
        w[12] = if l % 4 == 1 { 0x4444_4441 } else { 0x4444_4444 };
        w
    });
    let case = Case {
        name: e4m3,
        target: "sm_89".into(),
        na: 4,
        nb: 4,
        nc: 4,
        nd: 4,
        lanes: lanes.collect(),
        f: "0".into(),
        prelude: String::new(),
        scaled: None,
    };
    let e = err(&case);
    assert!(
        // T1 holds row g + 8, blocks 0..7 (the 8-bit layout measured on an H200).
        e.contains("lane 1, metadata bits 3..0 (row 8 of A, columns 0..3)") && e.contains("L23838"),
        "{e}"
    );
}

/// Every sparse form of the catalog, on arbitrary A, B and C and the always-meaningful
/// metadata 0x44444444 (every field 0b0100: positions 0 and 1; tf32 element 0) with selector 0,
/// under its least target: it runs to the end (no internal error, no panic). The block-scaled
/// ones get arbitrary scale registers and the selectors {0, 0}, valid for every
/// `.scale_vec_size` (Table 36, L20070-20104).
#[test]
fn every_executed_sparse_form_runs() {
    use spec::catalog::{catalog, fragment, Exec};
    let cat = catalog();
    let mut ran = 0;
    let mut scaled = 0;
    let sparse = |f: &&spec::catalog::Form| f.exec() == Some(Exec::Mma) && f.var("sp").is_some();
    for f in cat.forms.iter().filter(sparse) {
        let block_scale = f.has("block_scale");
        let n = |name: &str| {
            let o = f.inputs.iter().find(|o| o.name == name).unwrap();
            fragment::length(f, o).unwrap()
        };
        let (na, nb, nc) = (n("a"), n("b"), n("c"));
        let nd = fragment::length(f, &f.outputs[0]).unwrap();
        let lanes = (0..32)
            .map(|l| {
                let mut w: Vec<u32> = (0..na + nb + nc)
                    .map(|i| ((l * 131 + i * 7919) as u32).wrapping_mul(0x9e37_79b9))
                    .collect();
                w.push(0x4444_4444);
                if block_scale {
                    w.extend([0x7e80_7f81u32.rotate_left(l as u32), 0x8079_7f7e]);
                }
                w
            })
            .collect();
        let case = Case {
            name: Box::leak(f.name.clone().into_boxed_str()),
            target: f.target.to_string(),
            na,
            nb,
            nc,
            nd,
            lanes,
            f: "0".into(),
            prelude: String::new(),
            scaled: block_scale.then_some([(0, 0), (0, 0)]),
        };
        if let Err(e) = case.run() {
            panic!("{}: {e}", f.name);
        }
        ran += 1;
        scaled += usize::from(block_scale);
    }
    // 250 sparse forms, 54 of them block-scaled.
    assert_eq!((ran, scaled), (250, 54));
}
