//! Form identifiers: a form's place in [`Catalog::forms`] as its own type, so that what names a
//! form (a lookup's result, a vector file's form, a program's instructions, a report's entries)
//! cannot be confused with a count, a row, a section or a position in some other list.

use super::{Catalog, Form};
use std::iter::FusedIterator;
use std::ops::{Index, Range};

/// A form of the catalog: its position in [`Catalog::forms`], which is fixed by the table (the
/// same build of the catalog gives every form the same id). Index the forms with it
/// (`cat.forms[id]`, [`Catalog::form`]); ids come from the catalog ([`Catalog::ids`],
/// [`Catalog::lookup`], [`Catalog::by_name`], [`super::Row::forms`]), never from arithmetic.
///
/// ```
/// let cat = spec::catalog::catalog();
/// let id = cat.by_name("add.s32")[0];
/// assert_eq!(cat.form(id).name, "add.s32");
/// assert_eq!(cat.forms[id].name, "add.s32");
/// assert_eq!(cat.id_at(id.index()), Some(id));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormId(u32);

impl FormId {
    /// The form with position `index` in [`Catalog::forms`]. Only the catalog makes ids (it
    /// has fewer than 2^32 forms); [`Catalog::id_at`] is the checked way from a position.
    pub(super) fn new(index: usize) -> FormId {
        FormId(u32::try_from(index).expect("more than 2^32 catalog forms"))
    }

    /// Its position in [`Catalog::forms`]: for tables kept parallel to the forms (a count or a
    /// flag per form, in catalog order). `cat.forms[id.index()]` is `cat.forms[id]`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Consecutive forms: the forms of a row ([`super::Row::forms`]) or of the whole catalog
/// ([`Catalog::ids`]), in catalog order. An iterator, like the `Range<usize>` it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormIds {
    start: u32,
    end: u32,
}

impl FormIds {
    /// The forms with positions `range` in [`Catalog::forms`].
    pub(super) fn new(range: Range<usize>) -> FormIds {
        FormIds {
            start: FormId::new(range.start).0,
            end: FormId::new(range.end).0,
        }
    }

    /// Whether no form is left.
    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }

    /// Whether `id` is one of the forms left.
    pub fn contains(&self, id: FormId) -> bool {
        (self.start..self.end).contains(&id.0)
    }
}

impl Iterator for FormIds {
    type Item = FormId;

    fn next(&mut self) -> Option<FormId> {
        (self.start < self.end).then(|| {
            self.start += 1;
            FormId(self.start - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.start) as usize;
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<FormId> {
        self.start = u32::try_from(n)
            .ok()
            .and_then(|n| self.start.checked_add(n))
            .map_or(self.end, |s| s.min(self.end));
        self.next()
    }
}

impl DoubleEndedIterator for FormIds {
    fn next_back(&mut self) -> Option<FormId> {
        (self.start < self.end).then(|| {
            self.end -= 1;
            FormId(self.end)
        })
    }
}

impl ExactSizeIterator for FormIds {}

impl FusedIterator for FormIds {}

impl Index<FormId> for [Form] {
    type Output = Form;

    fn index(&self, id: FormId) -> &Form {
        &self[id.index()]
    }
}

impl Index<FormId> for Vec<Form> {
    type Output = Form;

    fn index(&self, id: FormId) -> &Form {
        &self[id.index()]
    }
}

impl Catalog {
    /// The form `id` names (`cat.forms[id]`).
    pub fn form(&self, id: FormId) -> &Form {
        &self.forms[id]
    }

    /// Every form's id, in catalog order.
    pub fn ids(&self) -> FormIds {
        FormIds::new(0..self.forms.len())
    }

    /// Every form with its id, in catalog order.
    pub fn enumerate(&self) -> impl DoubleEndedIterator<Item = (FormId, &Form)> + ExactSizeIterator + '_ {
        self.ids().zip(&self.forms)
    }

    /// The form at position `index` in [`Catalog::forms`], if there is one: the way back from
    /// [`FormId::index`] (a table kept parallel to the forms, a position drawn at random).
    pub fn id_at(&self, index: usize) -> Option<FormId> {
        (index < self.forms.len()).then(|| FormId::new(index))
    }
}
