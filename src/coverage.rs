//! `ptxconf coverage`: how much of the catalog each part of the suite covers.
//!
//! Counts per §9.7 family and in total: forms in the catalog, forms with semantics in the spec,
//! forms with golden vectors (a file in corpus/vectors/, relative to the working directory, for a
//! form with semantics: `mov.u32 d, avar` shares `mov.u32`'s key but not its vectors) and forms
//! the program generator emits (issue 6; 0 until it exists).

use serde::Serialize;
use spec::catalog::{catalog, Class};
use std::fmt::Write as _;

#[derive(Serialize, Default, Clone)]
pub struct Counts {
    pub forms: usize,
    pub semantics: usize,
    pub vectors: usize,
    pub generated: usize,
}

impl Counts {
    fn add(&mut self, f: &FormCoverage) {
        self.forms += 1;
        self.semantics += f.semantics as usize;
        self.vectors += f.vectors as usize;
        self.generated += f.generated as usize;
    }
}

#[derive(Serialize)]
pub struct FamilyCoverage {
    pub id: &'static str,
    pub title: &'static str,
    pub sections: usize,
    #[serde(flatten)]
    pub counts: Counts,
}

#[derive(Serialize)]
pub struct SectionCoverage {
    pub id: &'static str,
    pub title: &'static str,
    pub family: &'static str,
    /// Line of the section heading in the PTX ISA 8.7 text.
    pub line: u32,
    #[serde(flatten)]
    pub counts: Counts,
}

#[derive(Serialize)]
pub struct FormCoverage {
    pub name: String,
    pub signature: String,
    pub section: &'static str,
    pub family: &'static str,
    pub class: Class,
    pub ptx: String,
    pub target: String,
    pub semantics: bool,
    pub vectors: bool,
    pub generated: bool,
}

#[derive(Serialize)]
pub struct Report {
    pub total: Counts,
    pub families: Vec<FamilyCoverage>,
    pub sections: Vec<SectionCoverage>,
    pub forms: Vec<FormCoverage>,
}

impl Report {
    pub fn compute() -> Report {
        let cat = catalog();
        let mut families: Vec<FamilyCoverage> = cat
            .families
            .iter()
            .map(|f| FamilyCoverage {
                id: f.id,
                title: f.title,
                sections: cat
                    .sections
                    .iter()
                    .filter(|s| cat.families[s.family].id == f.id)
                    .count(),
                counts: Counts::default(),
            })
            .collect();
        let mut sections: Vec<SectionCoverage> = cat
            .sections
            .iter()
            .map(|s| SectionCoverage {
                id: s.id,
                title: s.title,
                family: cat.families[s.family].id,
                line: s.line,
                counts: Counts::default(),
            })
            .collect();
        let mut total = Counts::default();
        let forms: Vec<FormCoverage> = cat
            .forms
            .iter()
            .map(|f| {
                let sec = cat.section_of(f);
                let semantics = spec::eval::semantics(f).is_some();
                FormCoverage {
                    name: f.name.clone(),
                    signature: f.signature(),
                    section: f.section,
                    family: cat.families[sec.family].id,
                    class: f.class,
                    ptx: f.ptx.to_string(),
                    target: f.target.to_string(),
                    semantics,
                    vectors: semantics
                        && crate::vectors::path_of(std::path::Path::new(crate::vectors::DEFAULT_DIR), f).is_file(),
                    generated: false,
                }
            })
            .collect();
        for fc in &forms {
            total.add(fc);
            if let Some(fam) = families.iter_mut().find(|x| x.id == fc.family) {
                fam.counts.add(fc);
            }
            if let Some(sec) = sections.iter_mut().find(|x| x.id == fc.section) {
                sec.counts.add(fc);
            }
        }
        families.sort_by_key(|f| {
            f.id.split('.')
                .map(|n| n.parse::<u32>().unwrap_or(0))
                .collect::<Vec<_>>()
        });
        Report {
            total,
            families,
            sections,
            forms,
        }
    }

    /// The human-readable table.
    pub fn table(&self) -> String {
        let pct = |n: usize, d: usize| if d == 0 { 0.0 } else { 100.0 * n as f64 / d as f64 };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<8} {:<58} {:>5} {:>7} {:>15} {:>8} {:>9}",
            "family", "title", "secs", "forms", "semantics", "vectors", "generated"
        );
        let mut line = |id: &str, title: &str, secs: String, c: &Counts| {
            let _ = writeln!(
                s,
                "{:<8} {:<58.58} {:>5} {:>7} {:>7} ({:>5.1}%) {:>8} {:>9}",
                id,
                title,
                secs,
                c.forms,
                c.semantics,
                pct(c.semantics, c.forms),
                c.vectors,
                c.generated
            );
        };
        for f in &self.families {
            line(f.id, f.title, f.sections.to_string(), &f.counts);
        }
        let secs: usize = self.families.iter().map(|f| f.sections).sum();
        line("total", "", secs.to_string(), &self.total);
        s
    }
}
