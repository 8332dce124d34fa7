//! The program builder: a typed register environment, scopes, and one method per construct (see
//! the module doc of [`super`] for the rules each keeps).

use super::aim::{self, Policy};
use super::facts::{facts, Det};
use super::{Config, Program, PTX_FILE};
use crate::float::{self, IntType};
use arbitrary::{Result, Unstructured};
use oracle::launch::{BufferSpec, Check, JudgeIn, LaunchFile, ParamSpec, Slot};
use spec::catalog::{catalog, write, Class, Form, FormId};
use spec::float::Fmt;
use spec::types::{FloatFormat, Kind};
use spec::value::{Args, Input};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::OnceLock;

mod asynccopy;
mod bulk;
mod cluster;
mod tensor;

/// The kernel's entry name.
pub const ENTRY: &str = "prog";

/// Bytes of a thread's global scratch region and of its `.local` buffer: 8 slots of 16 bytes.
const SLOT: u32 = 16;
const SLOTS: u32 = 8;
/// `.shared` exchanges and reduction counters per program, at most.
const EXCHANGES: u32 = 4;
const COUNTERS: u32 = 8;

/// A live register: its name, width in bits (1 for a predicate) and determinacy.
#[derive(Clone, Debug)]
struct Reg {
    name: String,
    width: u32,
    det: Det,
}

/// A memory slot's content, once written on every path.
type MemSlot = Option<(u32, Det)>;

/// A callable function: parameter widths and determinacies, the return's.
#[derive(Clone, Debug)]
struct FuncSig {
    name: String,
    params: Vec<(u32, Det)>,
    ret: (u32, Det),
}

/// The eligible value-level forms for a configuration, grouped by manual section so that each
/// section is equally likely (the comparisons' thousands of forms would drown the rest).
struct Menu {
    sections: Vec<Rc<Vec<FormId>>>,
}

/// Whether a form may appear in programs of a target, version and exclusion list (the families
/// are filtered per program, see [`menu`]).
fn eligible(form: &Form, cfg: &Config) -> bool {
    if !matches!(
        form.class,
        Class::BitExact | Class::ApproxBounded | Class::ApproxUnbounded
    ) || spec::eval::semantics(form).is_none()
    {
        return false;
    }
    if ["contract", "deprecated", "preview"].iter().any(|f| form.flag(f)) {
        return false;
    }
    aim::permits_form(cfg, form)
}

/// The menu of `cfg`: the sections eligible for its target, version, exclusions and allowed
/// set are built once per thread (for the configuration last asked for), then narrowed to its
/// families.
fn menu(cfg: &Config, families: Option<&Vec<String>>) -> Menu {
    type Sections = Rc<Vec<(&'static str, Rc<Vec<FormId>>)>>;
    thread_local! {
        static CACHE: RefCell<Option<(Policy, Sections)>> = const { RefCell::new(None) };
    }
    let all: Sections = CACHE.with(|c| {
        if let Some((k, m)) = &*c.borrow() {
            if k.is(cfg) {
                return m.clone();
            }
        }
        let key = Policy::of(cfg);
        let cat = catalog();
        let mut by: BTreeMap<&str, Vec<FormId>> = BTreeMap::new();
        for (i, f) in cat.enumerate() {
            if eligible(f, cfg) {
                by.entry(f.section).or_default().push(i);
            }
        }
        let m: Sections = Rc::new(
            by.into_values()
                .map(|v| (cat.family_of(&cat.forms[v[0]]).id, Rc::new(v)))
                .collect(),
        );
        *c.borrow_mut() = Some((key, m.clone()));
        m
    });
    Menu {
        sections: all
            .iter()
            .filter(|(fam, _)| families.is_none_or(|f| f.iter().any(|x| x == fam)))
            .map(|(_, v)| v.clone())
            .collect(),
    }
}

pub(super) fn eligible_count(cfg: &Config) -> usize {
    menu(cfg, cfg.families.as_ref()).sections.iter().map(|s| s.len()).sum()
}

/// The forms of the menu of `cfg` (its families), ascending.
pub(super) fn menu_forms(cfg: &Config) -> Vec<FormId> {
    let mut v: Vec<FormId> = menu(cfg, cfg.families.as_ref())
        .sections
        .iter()
        .flat_map(|s| s.iter().copied())
        .collect();
    v.sort_unstable();
    v
}

/// Counters of register names by class prefix, for the `.reg` declarations.
#[derive(Clone, Default)]
struct Names {
    counts: BTreeMap<u32, u32>,
}

impl Names {
    fn prefix(width: u32) -> (&'static str, &'static str) {
        match width {
            1 => ("%p", ".pred"),
            8 => ("%c", ".b8"),
            16 => ("%h", ".b16"),
            32 => ("%r", ".b32"),
            64 => ("%d", ".b64"),
            _ => ("%q", ".b128"),
        }
    }
    fn fresh(&mut self, width: u32) -> String {
        let n = self.counts.entry(width).or_insert(0);
        *n += 1;
        format!("{}{}", Names::prefix(width).0, *n - 1)
    }
    fn decls(&self) -> String {
        let mut s = String::new();
        for (&w, &n) in &self.counts {
            let (p, t) = Names::prefix(w);
            let _ = writeln!(s, "\t.reg {t} {p}<{n}>;");
        }
        s
    }
}

/// One function's body being built.
struct Body {
    text: String,
    names: Names,
    regs: Vec<Reg>,
    /// `regs.len()` where each open scope began.
    scopes: Vec<usize>,
    /// Whether CC.CF holds a value written in the current straight-line block.
    cc: bool,
    local: Vec<MemSlot>,
    local_used: bool,
    entry: bool,
}

impl Body {
    fn new(entry: bool) -> Body {
        Body {
            text: String::new(),
            names: Names::default(),
            regs: Vec::new(),
            scopes: Vec::new(),
            cc: false,
            local: vec![None; SLOTS as usize],
            local_used: false,
            entry,
        }
    }
    fn depth(&self) -> usize {
        self.scopes.len()
    }
    /// Where the innermost scope's registers begin.
    fn scope_start(&self) -> usize {
        self.scopes.last().copied().unwrap_or(0)
    }
}

struct Builder<'a, 'u> {
    u: &'a mut Unstructured<'u>,
    cfg: &'a Config,
    /// The features this program uses.
    feat: super::Features,
    menu: Menu,
    b: Body,
    funcs: Vec<FuncSig>,
    /// Instructions still to emit (constructs count their own).
    budget: usize,
    labels: u32,
    instructions: usize,
    /// The value forms emitted.
    forms: Vec<FormId>,
    /// Each value instruction's line as written and how loosely its results may be determined
    /// by what the generator assumed (0 exact, 1 NaN-loose, 2 judged).
    assumed: Vec<(String, u8)>,
    // Entry-only state.
    sig_base: String,
    scr_base: String,
    shx: String,
    shn: String,
    slots: Vec<Slot>,
    sig_bytes: u32,
    scratch: Vec<MemSlot>,
    exchanges: u32,
    counters: u32,
    uses_scratch: bool,
    /// The register holding `%tid.x` (entry only).
    tid: String,
    /// Shared tiles used for matrix staging ([`tensor::TILES`] at most).
    tiles: u32,
    /// The register holding the address of this thread's input record (entry only).
    inp: String,
    /// Shared regions used by asynchronous copies and mbarrier phases
    /// ([`asynccopy::REGIONS`] at most).
    regions: u32,
    /// mbarrier objects used ([`asynccopy::MBARS`] at most).
    mbars: u32,
    /// Bytes of a thread's input record (entry only).
    inp_stride: u32,
    /// shared → global bulk copies used ([`bulk::STORES`] at most).
    stores: u32,
    /// Whether the program reaches other CTAs of its cluster (then it is launched with
    /// [`cluster::size`] CTAs per cluster).
    clustered: bool,
    /// Elements (`u32`) of the box of the program's tensor map over its inputs, 0 when it has
    /// none (see [`bulk`]).
    tmap_box: u32,
    /// Whether the entry declares and zeroes the shared reduction counters.
    has_counters: bool,
    /// Whether a line written since the innermost [`Builder::attempt`] began is not permitted
    /// ([`aim::permits`]): the attempt is then rolled back.
    refused: bool,
    /// What the configuration permits.
    permits: Rc<aim::Permits>,
}

/// Where a [`Builder::attempt`] began: what a rollback restores (the text and the lists only
/// grow, so their lengths suffice).
struct Mark {
    text: usize,
    names: Names,
    regs: Vec<Reg>,
    scopes: Vec<usize>,
    cc: bool,
    local: Vec<MemSlot>,
    local_used: bool,
    instructions: usize,
    forms: usize,
    assumed: usize,
    slots: usize,
    sig_bytes: u32,
    scratch: Vec<MemSlot>,
    exchanges: u32,
    counters: u32,
    uses_scratch: bool,
    tiles: u32,
    regions: u32,
    mbars: u32,
    stores: u32,
    clustered: bool,
    tmap_box: u32,
}

/// Builds a program of `cfg` with the features and families this program drew (swarm testing).
pub(super) fn build(
    u: &mut Unstructured,
    cfg: &Config,
    features: super::Features,
    families: Option<&Vec<String>>,
) -> Result<Program> {
    let menu = menu(cfg, families);
    let threads = cfg.warps.clamp(1, 32) * 32;
    let ctas = cfg.ctas.clamp(1, 65535);
    let mut g = Builder {
        u,
        cfg,
        feat: features,
        menu,
        b: Body::new(false),
        funcs: Vec::new(),
        budget: 0,
        labels: 0,
        instructions: 0,
        forms: Vec::new(),
        assumed: Vec::new(),
        sig_base: String::new(),
        scr_base: String::new(),
        shx: String::new(),
        shn: String::new(),
        slots: Vec::new(),
        sig_bytes: 0,
        scratch: vec![None; SLOTS as usize],
        exchanges: 0,
        counters: 0,
        uses_scratch: false,
        tid: String::new(),
        tiles: 0,
        inp: String::new(),
        regions: 0,
        mbars: 0,
        inp_stride: 0,
        stores: 0,
        clustered: false,
        tmap_box: 0,
        has_counters: false,
        refused: false,
        permits: aim::Permits::of(cfg),
    };
    let mut module = String::new();
    let _ = writeln!(
        module,
        "// generated by ptxconf (issue 6): a random well-typed program\n.version {}\n.target {}\n.address_size 64\n",
        cfg.ptx, cfg.target
    );
    let size = cfg.size.max(1);
    // A function's prologue and epilogue, and its call, must be permitted.
    let calls_ok = ["call", "ret"]
        .iter()
        .map(|s| s.to_string())
        .chain([16, 32, 64].iter().flat_map(|w| {
            [
                format!("ld.param.b{w}"),
                format!("st.param.b{w}"),
                format!("setp.ne.b{w}"),
            ]
        }))
        .all(|n| g.permits.get(&n));
    g.feat.calls &= calls_ok;
    let nfuncs = if g.feat.calls && cfg.max_funcs > 0 {
        g.u.int_in_range(0..=cfg.max_funcs)?
    } else {
        0
    };
    // Functions get a share of the size; the entry the rest.
    let per_func = (size / (2 * nfuncs.max(1))).max(1);
    for k in 0..nfuncs {
        module.push_str(&g.function(k, per_func)?);
    }
    let (entry, input, stride) = g.entry(threads, size)?;
    module.push_str(&entry);
    let n = (threads * ctas) as usize;
    let mut in_bytes = Vec::with_capacity(n * input.stride as usize);
    for t in 0..n {
        in_bytes.extend(input.record(t));
    }
    let launch = LaunchFile {
        ptx: PTX_FILE.into(),
        entry: ENTRY.into(),
        grid: [ctas, 1, 1],
        block: [threads, 1, 1],
        buffers: vec![
            BufferSpec {
                name: "in".into(),
                hex: Some(oracle::launch::encode_hex(&in_bytes)),
                size: None,
            },
            BufferSpec {
                name: "sig".into(),
                hex: None,
                size: Some(stride as u64 * n as u64),
            },
            BufferSpec {
                name: "scratch".into(),
                hex: None,
                size: Some(if g.stores > 0 {
                    // The threads' slots, then each CTA's bulk-store areas.
                    g.bulk_area_start() as u64 + (ctas * bulk::STORES * threads * 16) as u64
                } else if g.uses_scratch {
                    (SLOT * SLOTS) as u64 * n as u64
                } else {
                    16
                }),
            },
        ],
        params: ["in", "sig", "scratch"]
            .iter()
            .map(|b| ParamSpec::Buffer { buffer: b.to_string() })
            .chain((g.tmap_box > 0).then(|| bulk::input_map(g.tmap_box, in_bytes.len() as u64)))
            .collect(),
        shared_bytes: 0,
        cluster: g.clustered.then(|| [cluster::size(cfg), 1, 1]),
        limits: None,
        check: Some(Check {
            buffer: "sig".into(),
            stride,
            slots: std::mem::take(&mut g.slots),
        }),
        // Forms ptxas refuses although the manual's grammar has them load under the manual's.
        grammar: if oracle::ptxas::rejected_forms().is_subset(&cfg.exclude) {
            oracle::check::Grammar::Ptxas
        } else {
            oracle::check::Grammar::Manual
        },
    };
    // The source line of each value instruction, found in emission order.
    let mut assumed = Vec::new();
    let mut want = g.assumed.iter().peekable();
    for (n, l) in module.lines().enumerate() {
        if let Some((text, level)) = want.peek() {
            if l == text {
                assumed.push((n as u32 + 1, *level));
                want.next();
            }
        }
    }
    let mut forms = std::mem::take(&mut g.forms);
    forms.sort_unstable();
    forms.dedup();
    Ok(Program {
        ptx: module,
        launch,
        instructions: g.instructions,
        forms,
        assumed,
    })
}

/// The initial values of the entry's registers: per register, a value pool every thread draws
/// from (by thread index and a per-register offset), so threads differ.
struct Inputs {
    stride: u32,
    /// (offset, bytes, pool, start)
    regs: Vec<(u32, u32, Rc<Vec<u128>>, usize)>,
}

impl Inputs {
    fn record(&self, t: usize) -> Vec<u8> {
        let mut rec = vec![0u8; self.stride as usize];
        for (off, bytes, pool, start) in &self.regs {
            let v = pool[(start + t * 7) % pool.len()];
            rec[*off as usize..(*off + *bytes) as usize].copy_from_slice(&v.to_le_bytes()[..*bytes as usize]);
        }
        rec
    }
}

/// Pools of interesting register contents of one width: float hard cases of the formats that
/// width holds (packed for two lanes), integer edges, or both; computed once per process.
fn pool(width: u32, kind: u8) -> Rc<Vec<u128>> {
    type Pools = RefCell<BTreeMap<(u32, u8), Rc<Vec<u128>>>>;
    thread_local! {
        static POOLS: Pools = const { RefCell::new(BTreeMap::new()) };
    }
    POOLS.with(|p| {
        p.borrow_mut()
            .entry((width, kind % 3))
            .or_insert_with(|| Rc::new(make_pool(width, kind)))
            .clone()
    })
}

fn make_pool(width: u32, kind: u8) -> Vec<u128> {
    let ints = |bits: u32| -> Vec<u128> {
        float::int_hard_cases(IntType::new(bits.min(64), true))
            .into_iter()
            .map(u128::from)
            .collect()
    };
    let floats = |f: FloatFormat| -> Vec<u128> { float::hard_cases(Fmt::of(f)).into_iter().map(u128::from).collect() };
    let pack2 = |v: Vec<u128>, lane: u32| -> Vec<u128> {
        (0..v.len()).map(|i| v[i] | v[(i * 5 + 3) % v.len()] << lane).collect()
    };
    match (width, kind % 3) {
        (8, _) => (0..=255).collect(),
        (16, 0) => floats(FloatFormat::F16),
        (16, 1) => floats(FloatFormat::Bf16),
        (16, _) => ints(16),
        (32, 0) => floats(FloatFormat::F32),
        (32, 1) => pack2(floats(FloatFormat::F16), 16),
        (32, _) => ints(32),
        (64, 0) => floats(FloatFormat::F64),
        (64, 1) => pack2(floats(FloatFormat::F32), 32),
        (64, _) => ints(64),
        (_, _) => pack2(ints(64), 64),
    }
}

impl<'a, 'u> Builder<'a, 'u> {
    // ---- text -------------------------------------------------------------------------------

    fn line(&mut self, s: &str) {
        let start = self.b.text.len();
        self.b.text.push('\t');
        self.b.text.push_str(s);
        if !aim::name_of_line(&self.b.text[start..]).is_some_and(|n| self.permits.get(n)) {
            self.refused = true;
        }
        self.b.text.push_str(";\n");
        self.instructions += 1;
    }

    /// Runs construct `f`, and rolls back everything it wrote when one of its lines is not
    /// permitted ([`aim::permits`]: beyond the version, the target or the allowed set): then
    /// `Ok(false)`, as for a construct that did not fit.
    fn attempt(&mut self, f: impl FnOnce(&mut Self) -> Result<bool>) -> Result<bool> {
        let mark = Mark {
            text: self.b.text.len(),
            names: self.b.names.clone(),
            regs: self.b.regs.clone(),
            scopes: self.b.scopes.clone(),
            cc: self.b.cc,
            local: self.b.local.clone(),
            local_used: self.b.local_used,
            instructions: self.instructions,
            forms: self.forms.len(),
            assumed: self.assumed.len(),
            slots: self.slots.len(),
            sig_bytes: self.sig_bytes,
            scratch: self.scratch.clone(),
            exchanges: self.exchanges,
            counters: self.counters,
            uses_scratch: self.uses_scratch,
            tiles: self.tiles,
            regions: self.regions,
            mbars: self.mbars,
            stores: self.stores,
            clustered: self.clustered,
            tmap_box: self.tmap_box,
        };
        let outer = std::mem::replace(&mut self.refused, false);
        let done = f(self)?;
        let refused = std::mem::replace(&mut self.refused, outer);
        if !refused {
            return Ok(done);
        }
        self.b.text.truncate(mark.text);
        self.b.names = mark.names;
        self.b.regs = mark.regs;
        self.b.scopes = mark.scopes;
        self.b.cc = mark.cc;
        self.b.local = mark.local;
        self.b.local_used = mark.local_used;
        self.instructions = mark.instructions;
        self.forms.truncate(mark.forms);
        self.assumed.truncate(mark.assumed);
        self.slots.truncate(mark.slots);
        self.sig_bytes = mark.sig_bytes;
        self.scratch = mark.scratch;
        self.exchanges = mark.exchanges;
        self.counters = mark.counters;
        self.uses_scratch = mark.uses_scratch;
        self.tiles = mark.tiles;
        self.regions = mark.regions;
        self.mbars = mark.mbars;
        self.stores = mark.stores;
        self.clustered = mark.clustered;
        self.tmap_box = mark.tmap_box;
        Ok(false)
    }
    fn label(&mut self, l: &str) {
        let _ = writeln!(self.b.text, "{l}:");
        // A label joins control flow: CC.CF from before it is not known on every path.
        self.b.cc = false;
    }
    fn new_label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("${what}{}", self.labels)
    }

    // ---- registers --------------------------------------------------------------------------

    /// A fresh register, live until the current scope ends.
    fn fresh(&mut self, width: u32, det: Det) -> String {
        let name = self.b.names.fresh(width);
        self.b.regs.push(Reg {
            name: name.clone(),
            width,
            det,
        });
        name
    }
    /// A register not in the environment (infrastructure, temporaries).
    fn temp(&mut self, width: u32) -> String {
        self.b.names.fresh(width)
    }

    /// A live register of `width` whose value may stand where `want` is assumed (`None`: any
    /// determinacy, for moves that keep it: memory, shuffles).
    fn pick(&mut self, width: u32, want: Option<Det>) -> Result<Option<Reg>> {
        let c: Vec<usize> = (0..self.b.regs.len())
            .filter(|&i| {
                let r = &self.b.regs[i];
                r.width == width && want.is_none_or(|w| r.det.within(w))
            })
            .collect();
        if c.is_empty() {
            return Ok(None);
        }
        let i = c[self.u.choose_index(c.len())?];
        Ok(Some(self.b.regs[i].clone()))
    }

    /// The name of a register [`Self::pick`] finds for `want`.
    fn pick_src(&mut self, width: u32, want: Det) -> Result<Option<String>> {
        Ok(self.pick(width, Some(want))?.map(|r| r.name))
    }

    /// A destination for a value of `width` and determinacy `det`: a fresh register, or (half the
    /// time) a live one the write keeps sound. `guarded`: the write may not happen, so the old
    /// value may remain. `avoid`: registers this instruction already writes.
    fn pick_dst(&mut self, width: u32, det: Det, guarded: bool, avoid: &[String]) -> Result<String> {
        let start = self.b.scope_start();
        let depth = self.b.depth();
        let c: Vec<usize> = (0..self.b.regs.len())
            .filter(|&i| {
                let r = &self.b.regs[i];
                if r.width != width || avoid.contains(&r.name) {
                    return false;
                }
                // A register of an enclosing scope (or one that keeps its old value) must keep
                // a determinacy that covers both values, and since a loop body runs again
                // with the new value, it must not change at all.
                let outer = i < start && depth > 0;
                if outer || guarded {
                    det.within(r.det)
                } else {
                    true
                }
            })
            .collect();
        if guarded && c.is_empty() {
            return Err(arbitrary::Error::IncorrectFormat);
        }
        if !guarded && (c.is_empty() || self.u.ratio(1, 2)?) {
            return Ok(self.fresh(width, det));
        }
        let i = c[self.u.choose_index(c.len())?];
        // A register of the current scope, written for sure, takes the new value's determinacy;
        // otherwise the old one already covers it (and must stay, see above).
        let outer = i < start && depth > 0;
        if !guarded && !outer {
            self.b.regs[i].det = det;
        }
        Ok(self.b.regs[i].name.clone())
    }

    fn open_scope(&mut self) {
        self.b.scopes.push(self.b.regs.len());
        self.b.cc = false;
    }
    fn close_scope(&mut self) {
        let start = self.b.scopes.pop().unwrap_or(0);
        self.b.regs.truncate(start);
        self.b.cc = false;
    }

    // ---- the signature ----------------------------------------------------------------------

    /// Stores a value into the thread's signature record; returns its slot index.
    fn sig_store(&mut self, name: &str, width: u32, det: Det, judge: Option<(String, u32, Vec<JudgeIn>)>) -> u32 {
        let bytes = if width == 1 { 4 } else { width / 8 };
        let off = self.sig_bytes.div_ceil(bytes) * bytes;
        self.sig_bytes = off + bytes;
        let base = self.sig_base.clone();
        if width == 1 {
            let t = self.temp(32);
            self.line(&format!("selp.u32 {t}, 1, 0, {name}"));
            self.line(&format!("st.global.u32 [{base}+{off}], {t}"));
        } else {
            self.line(&format!("st.global.b{width} [{base}+{off}], {name}"));
        }
        let slot = match (judge, det) {
            (Some((form, output, ins)), _) => Slot::Judge {
                offset: off,
                bytes,
                form,
                output,
                ins,
            },
            (None, Det::Loose { format, lane_bits }) => Slot::Nan {
                offset: off,
                bytes,
                format: format.name().to_string(),
                lane_bits,
            },
            (None, _) => Slot::Exact { offset: off, bytes },
        };
        self.slots.push(slot);
        self.slots.len() as u32 - 1
    }

    // ---- value instructions -----------------------------------------------------------------

    /// One value-level instruction of a random eligible form, if operands for it can be found.
    fn value(&mut self, guard: bool) -> Result<bool> {
        if self.menu.sections.is_empty() {
            return Ok(false);
        }
        let sec = self.menu.sections[self.u.choose_index(self.menu.sections.len())?].clone();
        let fi = sec[self.u.choose_index(sec.len())?];
        let Some(f) = facts(fi) else { return Ok(false) };
        let form = f.form();
        // A `.b128` destination ends in the signature through `st.global.b128`, which is not
        // part of the skeleton.
        if form.outputs.iter().any(|o| o.ty.bits() == 128) && !self.available("st.global.b128") {
            return Ok(false);
        }
        let judged = f.outs.contains(&Det::Judged);
        let top = self.b.entry && self.b.depth() == 0;
        if judged && !(top && self.feat.judged && !guard) {
            return Ok(false);
        }
        let cc_in = form.inputs.iter().any(|o| o.flags.cc);
        if cc_in && (!self.b.cc || judged) {
            return Ok(false);
        }
        let guard_text = if guard {
            let Some(p) = self.pick_src(1, Det::Exact)? else {
                return Ok(false);
            };
            Some(format!("@{}{p} ", if self.u.arbitrary()? { "!" } else { "" }))
        } else {
            None
        };
        // Sources.
        let mut ins: Vec<Option<String>> = vec![None; form.inputs.len()];
        let mut trial: Vec<Input> = Vec::new();
        // Per written source: (register, width, determinacy) or an immediate, and `!`.
        type Source = (Option<(String, u32, Det)>, Option<u128>, bool);
        let mut judge_ins: Vec<Source> = Vec::new();
        for (j, o) in form.inputs.iter().enumerate().take(f.written) {
            let pool = &f.pools[j];
            if o.flags.cc {
                trial.push(Input::bits(0));
                continue;
            }
            if o.flags.imm {
                let bits = pool[self.u.choose_index(pool.len())?];
                ins[j] = Some(write::immediate(o.ty, bits));
                trial.push(Input::bits(bits));
                judge_ins.push((None, Some(bits), false));
                continue;
            }
            let width = if o.ty.kind == Kind::Pred { 1 } else { o.ty.bits().max(8) };
            let want = f.loose_in[j].unwrap_or(Det::Exact);
            let Some(Reg { name: mut r, det, .. }) = self.pick(width, Some(want))? else {
                return Ok(false);
            };
            if f.divisor == Some(j) {
                if !self.permits.get(&format!("or.b{width}")) {
                    return Ok(false);
                }
                let g = self.temp(width);
                self.line(&format!("or.b{width} {g}, {r}, 1"));
                r = g;
            }
            let neg = o.ty.kind == Kind::Pred && o.flags.not && self.u.ratio(1, 4)?;
            ins[j] = Some(format!("{}{r}", if neg { "!" } else { "" }));
            trial.push(Input {
                bits: pool[0],
                negated: neg,
                sel: None,
            });
            judge_ins.push((Some((r, width, det)), None, neg));
        }
        // Immediates the spec rejects in this combination would fail at run time: ask first
        // (without immediates, the shape is the probe's, which the spec accepted).
        let imm = form.inputs.iter().take(f.written).any(|o| o.flags.imm);
        if imm
            && spec::eval::eval(
                form,
                &Args {
                    ins: &trial,
                    dsel: None,
                },
            )
            .is_err()
        {
            return Ok(false);
        }
        // Destinations.
        let mut outs: Vec<String> = Vec::new();
        let mut pending: Vec<(String, u32, Det, u32)> = Vec::new();
        for (k, o) in form.outputs.iter().enumerate() {
            if o.flags.cc {
                outs.push(String::new());
                continue;
            }
            let width = if o.ty.kind == Kind::Pred { 1 } else { o.ty.bits().max(8) };
            let det = f.outs[k];
            let name = if det == Det::Judged {
                let t = self.temp(width);
                pending.push((t.clone(), width, det, k as u32));
                t
            } else if judged {
                // Other destinations of a judged instruction go to the signature as values.
                let t = self.fresh(width, det);
                pending.push((t.clone(), width, det, k as u32));
                t
            } else {
                match self.pick_dst(width, det, guard, &outs) {
                    Ok(n) => n,
                    Err(_) => return Ok(false),
                }
            };
            outs.push(name);
        }
        // A judged instruction's register inputs go to the signature first.
        let mut jins: Vec<JudgeIn> = Vec::new();
        if judged {
            for (reg, imm, neg) in judge_ins {
                let slot = reg.map(|(r, width, det)| self.sig_store(&r, width, det, None));
                jins.push(JudgeIn {
                    slot,
                    imm: imm.map(|b| format!("0x{b:x}")),
                    neg,
                    sel: None,
                });
            }
        }
        let text = format!(
            "{}{} {}",
            guard_text.unwrap_or_default(),
            form.name,
            write::operand_list(form, &outs, &ins)
        );
        self.line(&text);
        self.forms.push(fi);
        let level = f
            .outs
            .iter()
            .map(|d| match d {
                Det::Exact => 0,
                Det::Loose { .. } => 1,
                Det::Judged => 2,
            })
            .max()
            .unwrap_or(0);
        self.assumed.push((format!("\t{text};"), level));
        if let Some(k) = form.outputs.iter().position(|o| o.flags.cc) {
            // A guarded writer may leave CC.CF unwritten; a flag the spec leaves set-valued
            // (sub.cc's: the hardware's carry or the manual's borrow) determines no reader.
            self.b.cc = !guard && f.outs.get(k) == Some(&Det::Exact);
        }
        let key = spec::vector::form_key(form);
        for (name, width, det, k) in pending {
            let judge = (det == Det::Judged).then(|| (key.clone(), k, jins.clone()));
            self.sig_store(&name, width, det, judge);
        }
        Ok(true)
    }

    /// A value instruction, trying a few forms: most forms need operands of particular widths,
    /// and a program with few live registers of a width fits few of them.
    fn value_retry(&mut self) -> Result<bool> {
        for _ in 0..8 {
            if self.value(false)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    // ---- constructs -------------------------------------------------------------------------

    /// `mov` of a special register: always possible.
    fn special(&mut self) -> Result<()> {
        let regs = ["%tid.x", "%laneid", "%ntid.x", "%ctaid.x", "%nctaid.x"];
        let s = regs[self.u.choose_index(regs.len())?];
        let d = self.pick_dst(32, Det::Exact, false, &[])?;
        self.line(&format!("mov.u32 {d}, {s}"));
        Ok(())
    }

    fn if_else(&mut self) -> Result<bool> {
        let Some(p) = self.pick_src(1, Det::Exact)? else {
            return Ok(false);
        };
        let (els, end) = (self.new_label("ELSE"), self.new_label("END"));
        let neg = if self.u.arbitrary()? { "!" } else { "" };
        self.line(&format!("@{neg}{p} bra {els}"));
        let n = self.u.int_in_range(1..=6)?;
        self.open_scope();
        self.block(n)?;
        self.close_scope();
        self.line(&format!("bra {end}"));
        self.label(&els);
        self.open_scope();
        if self.u.arbitrary()? {
            self.block(n)?;
        }
        self.close_scope();
        self.label(&end);
        Ok(true)
    }

    fn counted_loop(&mut self) -> Result<bool> {
        let max = self.cfg.max_trips.max(1);
        let ctr = self.temp(32);
        let src = self.pick_src(32, Det::Exact)?;
        match src {
            Some(s) if self.u.arbitrary()? => {
                // A data-dependent count: threads leave the loop at different times.
                self.line(&format!("rem.u32 {ctr}, {s}, {max}"));
                self.line(&format!("add.u32 {ctr}, {ctr}, 1"));
            }
            _ => {
                let k = self.u.int_in_range(1..=max)?;
                self.line(&format!("mov.u32 {ctr}, {k}"));
            }
        }
        let head = self.new_label("LOOP");
        self.label(&head);
        self.open_scope();
        let n = self.u.int_in_range(1..=6)?;
        self.block(n)?;
        self.close_scope();
        let p = self.temp(1);
        self.line(&format!("sub.u32 {ctr}, {ctr}, 1"));
        self.line(&format!("setp.ne.u32 {p}, {ctr}, 0"));
        self.line(&format!("@{p} bra {head}"));
        self.b.cc = false;
        Ok(true)
    }

    fn call(&mut self) -> Result<bool> {
        if self.funcs.is_empty() {
            return Ok(false);
        }
        let f = self.funcs[self.u.choose_index(self.funcs.len())?].clone();
        let mut args = Vec::new();
        for &(w, d) in &f.params {
            let Some(r) = self.pick_src(w, d)? else {
                return Ok(false);
            };
            args.push(r);
        }
        let ret = self.pick_dst(f.ret.0, f.ret.1, false, &[])?;
        self.line(&format!("call ({ret}), {}, ({})", f.name, args.join(", ")));
        self.b.cc = false;
        Ok(true)
    }

    /// A store to or load from a memory slot array (`.local` or the thread's global scratch).
    fn memory(&mut self, global: bool) -> Result<bool> {
        let (space, base) = if global {
            self.uses_scratch = true;
            ("global", self.scr_base.clone())
        } else {
            self.b.local_used = true;
            ("local", "lbuf".to_string())
        };
        let s = self.u.int_in_range(0..=SLOTS - 1)?;
        let off = s * SLOT;
        let slot = if global {
            self.scratch[s as usize]
        } else {
            self.b.local[s as usize]
        };
        let load = slot.is_some() && self.u.arbitrary()?;
        if load {
            let (w, d) = slot.expect("written slot");
            let dst = self.pick_dst(w, d, false, &[])?;
            self.line(&format!("ld.{space}.b{w} {dst}, [{base}+{off}]"));
            return Ok(true);
        }
        let widths = [8u32, 16, 32, 64];
        let w = match slot {
            // Below the top level a slot must already be written on every path, and keeps its
            // width and determinacy (see `pick_dst`).
            Some((w, _)) if self.b.depth() > 0 => w,
            None if self.b.depth() > 0 => return Ok(false),
            _ => widths[self.u.choose_index(widths.len())?],
        };
        let want = match slot {
            Some((_, d)) if self.b.depth() > 0 => d,
            _ => Det::Exact,
        };
        // At the top level any value will do; the slot takes its determinacy.
        let top = self.b.depth() == 0;
        let Some(Reg { name: src, det, .. }) = self.pick(w, (!top).then_some(want))? else {
            return Ok(false);
        };
        self.line(&format!("st.{space}.b{w} [{base}+{off}], {src}"));
        if self.b.depth() == 0 {
            if global {
                self.scratch[s as usize] = Some((w, det));
            } else {
                self.b.local[s as usize] = Some((w, det));
            }
        }
        Ok(true)
    }

    /// `atom` on a word of the thread's own scratch: the old value is the slot's, whatever the
    /// order of other threads (they touch other words).
    fn atomic(&mut self) -> Result<bool> {
        let written: Vec<u32> = (0..SLOTS)
            .filter(|&s| matches!(self.scratch[s as usize], Some((32 | 64, Det::Exact))))
            .collect();
        if written.is_empty() {
            return Ok(false);
        }
        let s = written[self.u.choose_index(written.len())?];
        let w = self.scratch[s as usize].expect("written").0;
        let cas = self.u.ratio(1, 5)?;
        let ops: Vec<&str> = ATOM_OPS.iter().filter(|(_, ow)| *ow == w).map(|(o, _)| *o).collect();
        let op = if cas {
            format!("cas.b{w}")
        } else {
            ops[self.u.choose_index(ops.len())?].to_string()
        };
        let name = format!("atom.global.{op}");
        if !self.available(&name) {
            return Ok(false);
        }
        let Some(v) = self.pick_src(w, Det::Exact)? else {
            return Ok(false);
        };
        let extra = if cas {
            let Some(c) = self.pick_src(w, Det::Exact)? else {
                return Ok(false);
            };
            format!(", {c}")
        } else {
            String::new()
        };
        let d = self.pick_dst(w, Det::Exact, false, &[])?;
        let base = self.scr_base.clone();
        self.line(&format!("{name} {d}, [{base}+{}], {v}{extra}", s * SLOT));
        Ok(true)
    }

    /// Whether programs of this configuration may contain an instruction written `text`
    /// ([`aim::permits`]: a catalog form of its version and target, not excluded, allowed).
    fn available(&self, text: &str) -> bool {
        self.permits.get(text)
    }

    /// Every thread stores a value in its own `.shared` slot, the CTA waits, and each reads its
    /// neighbour's.
    fn exchange(&mut self) -> Result<bool> {
        if self.exchanges >= EXCHANGES {
            return Ok(false);
        }
        let widths = [8u32, 16, 32, 64];
        let w = widths[self.u.choose_index(widths.len())?];
        let Some(src) = self.pick(w, None)? else {
            return Ok(false);
        };
        let threads = self.cfg.warps.clamp(1, 32) * 32;
        let off = self.exchanges * threads * SLOT;
        self.exchanges += 1;
        let (shx, shn) = (self.shx.clone(), self.shn.clone());
        self.line(&format!("st.shared.b{w} [{shx}+{off}], {}", src.name));
        self.line("bar.sync 0");
        let d = self.pick_dst(w, src.det, false, &[])?;
        self.line(&format!("ld.shared.b{w} {d}, [{shn}+{off}]"));
        Ok(true)
    }

    /// A `red` of every thread into a fresh shared counter, a barrier, and a read of the total.
    fn reduction(&mut self) -> Result<bool> {
        if !self.has_counters || self.counters >= COUNTERS {
            return Ok(false);
        }
        let op = RED_OPS[self.u.choose_index(RED_OPS.len())?];
        if !self.available(&format!("red.shared.{op}")) {
            return Ok(false);
        }
        let Some(v) = self.pick_src(32, Det::Exact)? else {
            return Ok(false);
        };
        let k = self.counters;
        self.counters += 1;
        self.line(&format!("red.shared.{op} [shc+{}], {v}", 4 * k));
        self.line("bar.sync 0");
        let d = self.pick_dst(32, Det::Exact, false, &[])?;
        self.line(&format!("ld.shared.u32 {d}, [shc+{}]", 4 * k));
        Ok(true)
    }

    fn bar_red(&mut self) -> Result<bool> {
        let Some(p) = self.pick_src(1, Det::Exact)? else {
            return Ok(false);
        };
        if self.u.arbitrary()? {
            let d = self.pick_dst(32, Det::Exact, false, &[])?;
            self.line(&format!("bar.red.popc.u32 {d}, 0, {p}"));
        } else {
            let op = if self.u.arbitrary()? { "and" } else { "or" };
            let d = self.pick_dst(1, Det::Exact, false, &[])?;
            self.line(&format!("bar.red.{op}.pred {d}, 0, {p}"));
        }
        Ok(true)
    }

    /// A warp collective over the full warp.
    fn collective(&mut self) -> Result<bool> {
        const MASK: &str = "0xffffffff";
        match self.u.int_in_range(0..=10u8)? {
            // Tensor-core constructs (see `tensor`): a warp-wide `mma` of any type, and
            // `ldmatrix`/`stmatrix` through shared memory, which needs a CTA barrier.
            8 | 9 if self.feat.barriers => return self.matrix_move(),
            6 | 9 => return self.matrix_mma(),
            // `wgmma` where the target has it and the CTA is whole warpgroups.
            10 if self.feat.barriers => {
                if self.warpgroup_mma()? {
                    return Ok(true);
                }
                return self.matrix_mma();
            }
            8 | 10 => return self.matrix_mma(),
            7 => {
                // A transpose of 8x8 16-bit elements across the warp: exact.
                return self.warp_unary("movmatrix.sync.aligned.m8n8.trans.b16", 32, 32, false);
            }
            0 => {
                static MODES: OnceLock<Vec<&'static str>> = OnceLock::new();
                let modes = MODES.get_or_init(|| modes_of("shfl.sync"));
                let m = modes[self.u.choose_index(modes.len())?];
                if !self.available(&format!("shfl.sync.{m}.b32")) {
                    return Ok(false);
                }
                let Some(a) = self.pick(32, None)? else {
                    return Ok(false);
                };
                let lane = self.u.int_in_range(0..=31u32)?;
                let clamp = if m == "up" { 0 } else { 0x1f };
                let d = self.pick_dst(32, a.det, false, &[])?;
                self.line(&format!("shfl.sync.{m}.b32 {d}, {}, {lane}, {clamp}, {MASK}", a.name));
            }
            1 => {
                static MODES: OnceLock<Vec<&'static str>> = OnceLock::new();
                let modes = MODES.get_or_init(|| modes_of("vote.sync"));
                let m = modes[self.u.choose_index(modes.len())?];
                return self.warp_unary(&format!("vote.sync.{m}.pred"), 1, 1, true);
            }
            2 => return self.warp_unary("vote.sync.ballot.b32", 1, 32, true),
            3 => {
                let w = if self.u.arbitrary()? { 32 } else { 64 };
                return self.warp_unary(&format!("match.any.sync.b{w}"), w, 32, true);
            }
            4 => {
                let op = REDUX_OPS[self.u.choose_index(REDUX_OPS.len())?];
                return self.warp_unary(&format!("redux.sync.{op}"), 32, 32, true);
            }
            _ => {
                if !self.available("activemask.b32") {
                    return Ok(false);
                }
                let d = self.pick_dst(32, Det::Exact, false, &[])?;
                self.line(&format!("activemask.b32 {d}"));
            }
        }
        Ok(true)
    }

    /// `NAME d, a, 0xffffffff` of an exact source of `src` bits into a destination of `dst` bits
    /// (vote, ballot, match, redux: results that depend on every bit of every lane's source);
    /// without the member mask when `masked` is false (`movmatrix`, which the whole warp runs).
    fn warp_unary(&mut self, name: &str, src: u32, dst: u32, masked: bool) -> Result<bool> {
        if !self.available(name) {
            return Ok(false);
        }
        let Some(a) = self.pick_src(src, Det::Exact)? else {
            return Ok(false);
        };
        let d = self.pick_dst(dst, Det::Exact, false, &[])?;
        let mask = if masked { ", 0xffffffff" } else { "" };
        self.line(&format!("{name} {d}, {a}{mask}"));
        Ok(true)
    }

    // ---- blocks ------------------------------------------------------------------------------

    /// About `n` instructions of constructs the position allows.
    fn block(&mut self, n: usize) -> Result<()> {
        let feat = self.feat;
        let mut left = n;
        while left > 0 && self.budget > 0 && !self.u.is_empty() {
            let before = self.instructions;
            let top = self.b.entry && self.b.depth() == 0;
            let nest = self.b.depth() < self.cfg.max_depth && self.budget > 4;
            let done = match self.u.int_in_range(0..=19u8)? {
                0..=9 => self.value_retry()?,
                10 if feat.predication => self.value(true)?,
                // Constructs are attempts: one that writes an instruction the configuration does
                // not permit is rolled back (value instructions come from a permitted menu).
                11 if feat.branches && nest => self.attempt(Self::if_else)?,
                12 if feat.loops && nest => self.attempt(Self::counted_loop)?,
                13 if feat.calls => self.attempt(Self::call)?,
                14 if feat.local => self.attempt(|g| g.memory(false))?,
                15 if feat.global && self.b.entry => self.attempt(|g| g.memory(true))?,
                16 if feat.atomics && self.b.entry && feat.global => self.attempt(Self::atomic)?,
                17 if top && feat.shared && feat.barriers => match self.u.int_in_range(0..=7u8)? {
                    // Asynchronous copies and mbarrier phases (see `asynccopy`), bulk copies
                    // (`bulk`) and cluster exchanges (`cluster`) share the exchange's slot: all
                    // stage data in shared memory for a neighbour.
                    2 => self.attempt(Self::async_copy)?,
                    3 => self.attempt(Self::mbarrier_phases)?,
                    4 => self.attempt(Self::bulk_load)?,
                    5 if self.u.arbitrary()? => self.attempt(Self::bulk_zero)? || self.attempt(Self::bulk_store)?,
                    5 => self.attempt(Self::bulk_store)?,
                    6 => self.attempt(Self::cluster_exchange)?,
                    _ => self.attempt(Self::exchange)?,
                },
                17 if top && feat.atomics && feat.shared && feat.barriers => self.attempt(Self::reduction)?,
                18 if top && feat.collectives => self.attempt(Self::collective)?,
                18 if top && feat.barriers => self.attempt(Self::bar_red)?,
                19 if top && feat.atomics && feat.shared && feat.barriers => self.attempt(Self::reduction)?,
                _ => false,
            };
            if !done {
                // Nothing fitted: a special-register read always does, and keeps progress.
                if self.u.ratio(1, 4)? {
                    self.special()?;
                } else {
                    continue;
                }
            }
            let used = (self.instructions - before).max(1);
            left = left.saturating_sub(used);
            self.budget = self.budget.saturating_sub(used);
        }
        Ok(())
    }

    // ---- functions and the entry -------------------------------------------------------------

    fn function(&mut self, k: usize, size: usize) -> Result<String> {
        self.b = Body::new(false);
        self.budget = size;
        let name = format!("f{k}");
        let nparams = self.u.int_in_range(1..=3)?;
        let mut params = Vec::new();
        let mut loads = String::new();
        for j in 0..nparams {
            let w = [16u32, 32, 64][self.u.choose_index(3)?];
            // A parameter may be declared NaN-loose (the callee then treats it so), letting callers
            // pass float results.
            let det = if self.u.arbitrary()? {
                Det::Loose {
                    format: match w {
                        16 => FloatFormat::F16,
                        32 => FloatFormat::F32,
                        _ => FloatFormat::F64,
                    },
                    lane_bits: w,
                }
            } else {
                Det::Exact
            };
            let r = self.fresh(w, det);
            let _ = writeln!(loads, "\tld.param.b{w} {r}, [{name}_a{j}];");
            self.instructions += 1;
            params.push((w, det));
        }
        let p = self.fresh(1, Det::Exact);
        let first = self.b.regs[0].name.clone();
        let w0 = self.b.regs[0].width;
        let _ = writeln!(loads, "\tsetp.ne.b{w0} {p}, {first}, 0;");
        self.instructions += 1;
        self.block(size)?;
        // Return one live value (never a predicate).
        let c: Vec<Reg> = self
            .b
            .regs
            .iter()
            .filter(|r| matches!(r.width, 16 | 32 | 64))
            .cloned()
            .collect();
        let ret = c[self.u.choose_index(c.len())?].clone();
        self.line(&format!("st.param.b{} [{name}_r], {}", ret.width, ret.name));
        self.line("ret");
        let mut s = String::new();
        let decl: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(j, (w, _))| format!(".param .b{w} {name}_a{j}"))
            .collect();
        let _ = writeln!(
            s,
            ".func (.param .b{} {name}_r) {name}({})\n{{",
            ret.width,
            decl.join(", ")
        );
        s.push_str(&self.b.names.decls());
        if self.b.local_used {
            let _ = writeln!(s, "\t.local .align 16 .b8 lbuf[{}];", SLOT * SLOTS);
        }
        s.push_str(&loads);
        s.push_str(&self.b.text);
        s.push_str("}\n\n");
        self.funcs.push(FuncSig {
            name,
            params,
            ret: (ret.width, ret.det),
        });
        Ok(s)
    }

    fn entry(&mut self, threads: u32, size: usize) -> Result<(String, Inputs, u32)> {
        self.b = Body::new(true);
        self.budget = size;
        let feat = self.feat;
        let (inp, sig, scr) = (self.temp(64), self.temp(64), self.temp(64));
        let (tid, ntid, cta, gtid, off) = (
            self.temp(32),
            self.temp(32),
            self.temp(32),
            self.temp(32),
            self.temp(64),
        );
        self.sig_base = sig.clone();
        self.scr_base = scr.clone();
        self.tid = tid.clone();
        self.inp = inp.clone();
        let mut pre = String::new();
        for (r, p) in [(&inp, "p_in"), (&sig, "p_sig"), (&scr, "p_scratch")] {
            let _ = writeln!(pre, "\tld.param.u64 {r}, [{p}];\n\tcvta.to.global.u64 {r}, {r};");
        }
        let _ = writeln!(
            pre,
            "\tmov.u32 {tid}, %tid.x;\n\tmov.u32 {ntid}, %ntid.x;\n\tmov.u32 {cta}, %ctaid.x;\n\tmad.lo.u32 {gtid}, {cta}, {ntid}, {tid};"
        );
        self.instructions += 10;
        // Shared memory: each thread's exchange slot and its neighbour's; the counters, zeroed
        // by thread 0 before the first barrier.
        // Both are set up here, before any construct, so their instructions must be permitted
        // now; without them the constructs that need them are off.
        let permits = self.permits.clone();
        let permitted = |names: &[&str]| names.iter().all(|n| permits.get(n));
        let shared = feat.shared && feat.barriers && permitted(&["mov.u64", "add.u32", "rem.u32", "bar.sync"]);
        self.feat.shared &= shared;
        let counters = feat.atomics && shared && permitted(&["setp.eq.u32", "st.shared.u32", "bar.sync"]);
        self.has_counters = counters;
        if shared {
            self.shx = self.temp(64);
            self.shn = self.temp(64);
            let (t, nb) = (self.temp(64), self.temp(32));
            let delta = self.u.int_in_range(1..=threads - 1)?;
            let (shx, shn) = (self.shx.clone(), self.shn.clone());
            // Own slot: sh + 16·tid; neighbour's: sh + 16·((tid + delta) mod threads).
            let _ = writeln!(
                pre,
                "\tmov.u64 {t}, sh;\n\tmul.wide.u32 {shx}, {tid}, {SLOT};\n\tadd.u64 {shx}, {t}, {shx};\n\
                 \tadd.u32 {nb}, {tid}, {delta};\n\trem.u32 {nb}, {nb}, {threads};\n\tmul.wide.u32 {shn}, {nb}, {SLOT};\n\
                 \tadd.u64 {shn}, {t}, {shn};"
            );
            self.instructions += 7;
        }
        if counters {
            let (p, z) = (self.temp(1), self.temp(32));
            let _ = writeln!(pre, "\tsetp.eq.u32 {p}, {tid}, 0;\n\tmov.u32 {z}, 0;");
            for k in 0..COUNTERS {
                let _ = writeln!(pre, "\t@{p} st.shared.u32 [shc+{}], {z};", 4 * k);
            }
            let _ = writeln!(pre, "\tbar.sync 0;");
            self.instructions += 3 + COUNTERS as usize;
        }
        let _ = writeln!(
            pre,
            "\tmul.wide.u32 {off}, {gtid}, @SIG_STRIDE@;\n\tadd.u64 {sig}, {sig}, {off};"
        );
        let _ = writeln!(
            pre,
            "\tmul.wide.u32 {off}, {gtid}, {};\n\tadd.u64 {scr}, {scr}, {off};",
            SLOT * SLOTS
        );
        self.instructions += 4;
        // Inputs: registers of every width, each from its own pool of hard values.
        // `.b128` registers where the version and target have the type (`aim::SCAFFOLDING`)
        // and their load and signature store are permitted.
        let b128 =
            aim::scaffold_ok(self.cfg, ".b128") && self.available("ld.global.b128") && self.available("st.global.b128");
        let mut widths = vec![8u32, 16, 16, 16, 32, 32, 32, 32, 32, 64, 64, 64];
        if b128 {
            widths.push(128);
        }
        let mut inputs = Inputs {
            stride: 0,
            regs: Vec::new(),
        };
        let mut loads = String::new();
        for &w in &widths {
            let bytes = w / 8;
            let o = inputs.stride.div_ceil(bytes) * bytes;
            inputs.stride = o + bytes;
            let kind = self.u.int_in_range(0..=2u8)?;
            let p = pool(w, kind);
            let start = self.u.choose_index(p.len())?;
            inputs.regs.push((o, bytes, p, start));
            let r = self.fresh(w, Det::Exact);
            let _ = writeln!(loads, "\tld.global.b{w} {r}, [{inp}+{o}];");
            self.instructions += 1;
        }
        inputs.stride = inputs.stride.div_ceil(16) * 16;
        self.inp_stride = inputs.stride;
        let _ = writeln!(
            pre,
            "\tmul.wide.u32 {off}, {gtid}, {};\n\tadd.u64 {inp}, {inp}, {off};",
            inputs.stride
        );
        self.instructions += 2;
        for k in 0..2 {
            let a = self.b.regs[4 + k].name.clone();
            let b = self.b.regs[5 + k].name.clone();
            let p = self.fresh(1, Det::Exact);
            let _ = writeln!(loads, "\tsetp.lt.s32 {p}, {a}, {b};");
            self.instructions += 1;
        }
        self.block(size)?;
        // The signature: every live value.
        let live = self.b.regs.clone();
        for r in &live {
            self.sig_store(&r.name, r.width, r.det, None);
        }
        self.line("ret");
        let stride = self.sig_bytes.max(4).div_ceil(16) * 16;
        let mut s = String::new();
        let _ = writeln!(
            s,
            ".visible .entry {ENTRY}(.param .u64 p_in, .param .u64 p_sig, .param .u64 p_scratch{})\n{{",
            if self.tmap_box > 0 {
                ", .param .align 64 .b8 p_tmap[128]"
            } else {
                ""
            }
        );
        s.push_str(&self.b.names.decls());
        if self.b.local_used {
            let _ = writeln!(s, "\t.local .align 16 .b8 lbuf[{}];", SLOT * SLOTS);
        }
        if shared {
            let _ = writeln!(s, "\t.shared .align 16 .b8 sh[{}];", EXCHANGES * threads * SLOT);
        }
        if counters {
            let _ = writeln!(s, "\t.shared .align 4 .b8 shc[{}];", 4 * COUNTERS);
        }
        if self.tiles > 0 {
            let _ = writeln!(
                s,
                "\t.shared .align 16 .b8 {}[{}];",
                tensor::TILE_ARRAY,
                self.tiles * threads * 16
            );
        }
        if self.regions > 0 {
            // 128-byte aligned: the CUDA programming guide asks it of a tensor copy's shared
            // destination (the manual does not say).
            let _ = writeln!(
                s,
                "\t.shared .align 128 .b8 {}[{}];",
                asynccopy::REGION_ARRAY,
                self.regions * threads * 16
            );
        }
        if self.mbars > 0 {
            let _ = writeln!(s, "\t.shared .align 8 .b64 {}[{}];", asynccopy::MBAR_ARRAY, self.mbars);
        }
        s.push_str(&pre.replace("@SIG_STRIDE@", &stride.to_string()));
        s.push_str(&loads);
        s.push_str(&self.b.text);
        s.push_str("}\n");
        Ok((s, inputs, stride))
    }
}

/// The generator's choice of `atom.global` operations (with their width) on a thread's own
/// scratch word, whose old value is the word's whatever other threads do (plus `cas`): a sample
/// of the catalog's, kept fixed so that a seed gives the same programs; each is checked to be a
/// catalog form (`sampled_operations_are_catalog_forms`).
const ATOM_OPS: [(&str, u32); 9] = [
    ("add.u32", 32),
    ("add.u64", 64),
    ("min.s32", 32),
    ("max.u32", 32),
    ("and.b32", 32),
    ("or.b64", 64),
    ("xor.b32", 32),
    ("exch.b32", 32),
    ("inc.u32", 32),
];

/// The generator's choice of `red.shared` operations into a shared counter (order-independent
/// ones, so the total is determined).
const RED_OPS: [&str; 6] = ["add.u32", "and.b32", "or.b32", "xor.b32", "min.u32", "max.s32"];

/// The generator's choice of `redux.sync` operations.
const REDUX_OPS: [&str; 6] = ["add.u32", "min.s32", "max.u32", "and.b32", "or.b32", "xor.b32"];

/// The `.mode` choices the catalog lists for the forms whose name starts with `prefix.` (`shfl.sync`:
/// up, down, bfly, idx; `vote.sync`: all, any, uni), in the table's order.
fn modes_of(prefix: &str) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for f in &catalog().forms {
        if let Some(m) = f
            .var("mode")
            .filter(|_| f.name.starts_with(prefix) && f.name[prefix.len()..].starts_with('.'))
        {
            if !v.contains(&m) {
                v.push(m);
            }
        }
    }
    v
}

#[cfg(test)]
mod sample_tests {
    use super::*;
    use spec::catalog::{PtxVersion, Target};

    /// Every operation the generator samples names a catalog form available on sm_90 (an entry
    /// that named none would silently never be emitted), and the modes come from the catalog.
    #[test]
    fn sampled_operations_are_catalog_forms() {
        let cat = catalog();
        let (ptx, target) = (PtxVersion(8, 7), Target::parse("sm_90").unwrap());
        let names = ATOM_OPS
            .iter()
            .map(|(o, _)| format!("atom.global.{o}"))
            .chain(RED_OPS.iter().map(|o| format!("red.shared.{o}")))
            .chain(REDUX_OPS.iter().map(|o| format!("redux.sync.{o}")));
        for n in names {
            let found = cat.lookup(&n).unwrap_or_else(|e| panic!("{n}: {}", e.0));
            assert!(found.forms.iter().any(|&i| cat.forms[i].available(ptx, target)), "{n}");
        }
        // The bulk-copy and cluster constructs' forms (issue 16), each with every operation it
        // samples; `st.bulk` is sm_100's.
        let bulk = [
            bulk::TO_CTA,
            bulk::TO_CLUSTER,
            bulk::TO_GLOBAL,
            bulk::COMMIT,
            bulk::WAIT_GROUP,
            bulk::WAIT_GROUP_READ,
            bulk::INIT,
            bulk::INVAL,
            bulk::FENCE_INIT,
            bulk::ARRIVE_TX,
            bulk::EXPECT_TX,
            bulk::ARRIVE,
            cluster::MAPA,
            cluster::MAPA_GENERIC,
            cluster::GETCTARANK,
            cluster::LD,
            cluster::ST,
            "elect.sync",
        ]
        .iter()
        .map(|n| n.to_string())
        .chain(bulk::WAITS.iter().chain(&bulk::FENCE_PROXY).map(|n| n.to_string()))
        .chain(
            cluster::BARRIERS
                .iter()
                .flat_map(|(a, w)| [a.to_string(), w.to_string()]),
        )
        .chain(
            bulk::REDUCE_GLOBAL
                .iter()
                .map(|o| format!("{}.{o}", bulk::REDUCE_TO_GLOBAL)),
        )
        .chain(
            bulk::REDUCE_SHARED
                .iter()
                .map(|o| format!("{}.{o}", bulk::REDUCE_TO_SHARED)),
        );
        for n in bulk {
            let found = cat.lookup(&n).unwrap_or_else(|e| panic!("{n}: {}", e.0));
            assert!(found.forms.iter().any(|&i| cat.forms[i].available(ptx, target)), "{n}");
        }
        let sm100 = Target::parse("sm_100").unwrap();
        let found = cat
            .lookup(bulk::ST_BULK)
            .unwrap_or_else(|e| panic!("{}: {}", bulk::ST_BULK, e.0));
        assert!(found.forms.iter().any(|&i| cat.forms[i].available(ptx, sm100)));
        assert!(!found.forms.iter().any(|&i| cat.forms[i].available(ptx, target)));
        assert_eq!(modes_of("shfl.sync"), ["up", "down", "bfly", "idx"]);
        assert_eq!(modes_of("vote.sync"), ["all", "any", "uni"]);
    }
}
