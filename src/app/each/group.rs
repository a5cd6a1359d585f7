//! Which files are the same bug: pure, so the rules are unit-tested without a run.
//!
//! Files group by their signature's hash ([`crate::signature::Signature::hash`]: ending, kind,
//! key). A group is reduced from its smallest file (ties by path); the order of groups is that of
//! their smallest files, so the result does not depend on `-j` or on the order files were read.
//! The [`Ledger`] holds the bugs found: a reduced result is a new bug unless its signature or its
//! bytes are already one's (a reduction that slipped to another failure joins that bug; two
//! groups whose reductions end at the same bytes are one bug).

use std::collections::BTreeMap;

/// A failing file, as grouping sees it.
#[derive(Clone, Debug)]
pub struct Failing {
    /// Its index among the files of the run.
    pub file: usize,
    pub size: u64,
    pub path: String,
    /// Its signature's hash.
    pub hash: u64,
}

/// Files with one signature, smallest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub hash: u64,
    /// File indices, by (size, path).
    pub members: Vec<usize>,
}

/// The groups of `failing`, each smallest file first, the groups in the order of their smallest
/// files.
pub fn groups(failing: &[Failing]) -> Vec<Group> {
    let mut sorted: Vec<&Failing> = failing.iter().collect();
    sorted.sort_by(|a, b| (a.size, &a.path).cmp(&(b.size, &b.path)));
    let mut by_hash: BTreeMap<u64, usize> = BTreeMap::new();
    let mut out: Vec<Group> = Vec::new();
    for f in sorted {
        let at = *by_hash.entry(f.hash).or_insert_with(|| {
            out.push(Group {
                hash: f.hash,
                members: Vec::new(),
            });
            out.len() - 1
        });
        out[at].members.push(f.file);
    }
    out
}

/// Where a reduced result goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    /// A new bug, this index.
    New(usize),
    /// The bug with this signature already has an output.
    SameSignature(usize),
    /// Another bug's output has these very bytes.
    SameBytes(usize),
}

/// The bugs found so far: each one's signature hash and output bytes' key.
#[derive(Debug, Default)]
pub struct Ledger {
    bugs: Vec<(u64, u128)>,
}

impl Ledger {
    /// The bug with this signature hash, if one was found.
    pub fn find(&self, hash: u64) -> Option<usize> {
        self.bugs.iter().position(|(h, _)| *h == hash)
    }

    /// Places a result of signature `hash` and bytes `key`.
    pub fn place(&mut self, hash: u64, key: u128) -> Placed {
        if let Some(i) = self.find(hash) {
            return Placed::SameSignature(i);
        }
        if let Some(i) = self.bugs.iter().position(|(_, k)| *k == key) {
            return Placed::SameBytes(i);
        }
        self.bugs.push((hash, key));
        Placed::New(self.bugs.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(file: usize, size: u64, path: &str, hash: u64) -> Failing {
        Failing {
            file,
            size,
            path: path.into(),
            hash,
        }
    }

    #[test]
    fn files_group_by_signature_smallest_first_and_groups_by_their_smallest() {
        let failing = [
            f(0, 90, "a", 7),
            f(1, 30, "b", 9),
            f(2, 30, "c", 7),
            f(3, 10, "d", 9),
            f(4, 30, "a2", 7),
            f(5, 50, "e", 5),
        ];
        let got = groups(&failing);
        assert_eq!(
            got,
            [
                Group {
                    hash: 9,
                    members: vec![3, 1]
                },
                Group {
                    hash: 7,
                    members: vec![4, 2, 0]
                },
                Group {
                    hash: 5,
                    members: vec![5]
                },
            ]
        );
        // the order files were read in does not matter
        let mut reversed = failing.to_vec();
        reversed.reverse();
        assert_eq!(groups(&reversed), got);
    }

    #[test]
    fn a_result_joins_the_bug_of_its_signature_or_of_its_bytes() {
        let mut ledger = Ledger::default();
        assert_eq!(ledger.place(7, 100), Placed::New(0));
        assert_eq!(ledger.place(9, 200), Placed::New(1));
        // a slip to a failure already found
        assert_eq!(ledger.place(7, 300), Placed::SameSignature(0));
        // another signature, but reduced to the same bytes as bug 1
        assert_eq!(ledger.place(5, 200), Placed::SameBytes(1));
        assert_eq!(ledger.find(9), Some(1));
        assert_eq!(ledger.find(5), None);
    }
}
