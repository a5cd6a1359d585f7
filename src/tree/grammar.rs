//! Per-language tables derived once from a grammar crate's `LANGUAGE` and `NODE_TYPES`: which
//! child slots are lists (`multiple`) or optional, and which kinds each slot admits (supertypes
//! expanded), interned as bitsets over kind ids. Generic: what is specific to a language (its
//! crate, override table, comment kinds) comes from its [`LangSpec`] in `crate::lang`.

use std::collections::HashMap;

use anyhow::{Context, Result, bail};
use serde_json::Value;
use tree_sitter::Language;

use crate::lang::{LangSpec, Overrides};

/// What `node-types.json` says of one (parent kind, field) slot. Field 0 = the unnamed children.
#[derive(Clone, Copy, Debug)]
pub struct SlotInfo {
    pub multiple: bool,
    pub required: bool,
    /// Interned type-set id.
    pub types: u32,
}

#[derive(Clone)]
pub struct Grammar {
    pub name: &'static str,
    pub language: Language,
    /// Kind names by id; synthetic kinds for List/Opt/ERROR are appended at the end.
    pub kind_names: Vec<String>,
    pub type_sets: Vec<Vec<u64>>,
    slots: HashMap<(u16, u16), SlotInfo>,
    atomic: Vec<bool>,
    not_list: Vec<bool>,
    comment: Vec<bool>,
    pub spec: &'static LangSpec,
    pub overrides: &'static Overrides,
    /// Supertype names from `NODE_TYPES` (ABI-14 grammars report none through the runtime).
    pub supertype_names: Vec<String>,
    /// Synthetic kind ids.
    pub kind_list: u16,
    pub kind_opt: u16,
    pub kind_error: u16,
}

impl Grammar {
    /// The tables for one language of the registry.
    pub fn new(spec: &'static LangSpec) -> Result<Grammar> {
        let language = (spec.language)();
        let json: Value =
            serde_json::from_str(spec.node_types).context("NODE_TYPES is not JSON")?;
        let entries = json.as_array().context("NODE_TYPES is not a JSON array")?;
        let count = language.node_kind_count();
        let mut kind_names: Vec<String> = (0..count as u16)
            .map(|id| language.node_kind_for_id(id).unwrap_or("?").to_string())
            .collect();
        let base = count as u16;
        kind_names.extend(["[List]", "[Opt]", "ERROR"].map(String::from));
        let overrides = &spec.overrides;
        let n = kind_names.len();
        let comment = flags(&language, spec.comments, n);
        let mut atomic = flags(&language, overrides.atomic, n);
        for (a, c) in atomic.iter_mut().zip(&comment) {
            *a |= *c;
        }
        let supertypes = supertype_map(entries);
        let mut g = Grammar {
            name: spec.name,
            atomic,
            not_list: flags(&language, overrides.not_list, n),
            comment,
            language,
            kind_names,
            type_sets: Vec::new(),
            slots: HashMap::new(),
            spec,
            overrides,
            supertype_names: supertypes.keys().cloned().collect(),
            kind_list: base,
            kind_opt: base + 1,
            kind_error: base + 2,
        };
        g.load_slots(entries, &supertypes)?;
        g.apply_slot_excludes();
        Ok(g)
    }

    fn load_slots(
        &mut self,
        entries: &[Value],
        supertypes: &HashMap<String, Vec<(String, bool)>>,
    ) -> Result<()> {
        let mut interned: HashMap<Vec<u64>, u32> = HashMap::new();
        for e in entries {
            let Some(kind) = self.entry_id(e)? else {
                continue;
            };
            let mut slots: Vec<(u16, &Value)> = Vec::new();
            if let Some(fields) = e.get("fields").and_then(Value::as_object) {
                for (fname, info) in fields {
                    let Some(fid) = self.language.field_id_for_name(fname) else {
                        bail!("NODE_TYPES names unknown field {fname}: grammar crate mismatch");
                    };
                    slots.push((fid.get(), info));
                }
            }
            if let Some(children) = e.get("children") {
                slots.push((0, children));
            }
            for (field, info) in slots {
                let bits = self.type_bits(info, supertypes);
                let next = self.type_sets.len() as u32;
                let types = *interned.entry(bits.clone()).or_insert(next);
                if types == next {
                    self.type_sets.push(bits);
                }
                let flag = |k: &str| info.get(k).and_then(Value::as_bool).unwrap_or(false);
                let slot = SlotInfo {
                    multiple: flag("multiple"),
                    required: flag("required"),
                    types,
                };
                self.slots.insert((kind, field), slot);
            }
        }
        Ok(())
    }

    /// Narrows slots per the override table (a new interned set each).
    fn apply_slot_excludes(&mut self) {
        for (parent, kinds) in self.overrides.slot_excludes {
            let parent = self.language.id_for_node_kind(parent, true);
            let Some(slot) = self.slots.get_mut(&(parent, 0)) else {
                continue;
            };
            let mut bits = self.type_sets[slot.types as usize].clone();
            for kind in kinds.iter() {
                let id = self.language.id_for_node_kind(kind, true) as usize;
                if id != 0 {
                    bits[id / 64] &= !(1 << (id % 64));
                }
            }
            slot.types = self.type_sets.len() as u32;
            self.type_sets.push(bits);
        }
    }

    /// The kind id of a node-types entry; `None` for supertypes and unknown hidden kinds.
    fn entry_id(&self, e: &Value) -> Result<Option<u16>> {
        let name = e["type"].as_str().context("node type without a name")?;
        let named = e["named"].as_bool().unwrap_or(true);
        let id = self.language.id_for_node_kind(name, named);
        Ok((id != 0 && e.get("subtypes").is_none()).then_some(id))
    }

    fn type_bits(
        &self,
        info: &Value,
        supertypes: &HashMap<String, Vec<(String, bool)>>,
    ) -> Vec<u64> {
        let mut bits = vec![0u64; self.kind_names.len().div_ceil(64)];
        let mut todo: Vec<(String, bool)> = info["types"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                let name = t["type"].as_str().unwrap_or_default().to_string();
                (name, t["named"].as_bool().unwrap_or(true))
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some((name, named)) = todo.pop() {
            if !seen.insert((name.clone(), named)) {
                continue;
            }
            if let Some(subs) = supertypes.get(&name) {
                todo.extend(subs.iter().cloned());
                continue;
            }
            let id = self.language.id_for_node_kind(&name, named) as usize;
            if id != 0 {
                bits[id / 64] |= 1 << (id % 64);
            }
        }
        bits
    }

    /// The slot a child fills: `field` 0 = the unnamed children of `parent`.
    pub fn slot(&self, parent: u16, field: u16) -> Option<SlotInfo> {
        self.slots.get(&(parent, field)).copied()
    }

    pub fn is_atomic(&self, kind: u16) -> bool {
        self.atomic.get(kind as usize).copied().unwrap_or(false)
    }

    pub fn is_not_list(&self, kind: u16) -> bool {
        self.not_list.get(kind as usize).copied().unwrap_or(false)
    }

    /// Is this kind a comment of the language?
    pub fn is_comment(&self, kind: u16) -> bool {
        self.comment.get(kind as usize).copied().unwrap_or(false)
    }
}

fn flags(language: &Language, names: &[&str], len: usize) -> Vec<bool> {
    let mut v = vec![false; len];
    for name in names {
        let id = language.id_for_node_kind(name, true) as usize;
        if id != 0 && id < len {
            v[id] = true;
        }
    }
    v
}

/// Supertype name -> its direct subtypes.
fn supertype_map(entries: &[Value]) -> HashMap<String, Vec<(String, bool)>> {
    let mut map = HashMap::new();
    for e in entries {
        let Some(subs) = e.get("subtypes").and_then(Value::as_array) else {
            continue;
        };
        let name = e["type"].as_str().unwrap_or_default().to_string();
        let subs = subs
            .iter()
            .map(|s| {
                let n = s["type"].as_str().unwrap_or_default().to_string();
                (n, s["named"].as_bool().unwrap_or(true))
            })
            .collect();
        map.insert(name, subs);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_c_grammar_loads_and_knows_its_lists() {
        let g = Grammar::new(&crate::lang::c::SPEC).unwrap();
        let lang = &g.language;
        let block = lang.id_for_node_kind("compound_statement", true);
        let slot = g.slot(block, 0).expect("compound_statement children");
        assert!(slot.multiple && !slot.required);
        let if_stmt = lang.id_for_node_kind("if_statement", true);
        let alt = lang.field_id_for_name("alternative").unwrap().get();
        let alt = g.slot(if_stmt, alt).unwrap();
        assert!(!alt.multiple && !alt.required);
    }

    #[test]
    fn supertypes_are_expanded_in_slot_types() {
        let g = Grammar::new(&crate::lang::c::SPEC).unwrap();
        let lang = &g.language;
        let if_stmt = lang.id_for_node_kind("if_statement", true);
        let cond = lang.field_id_for_name("condition").unwrap().get();
        let cond = g.slot(if_stmt, cond).unwrap();
        let paren = lang.id_for_node_kind("parenthesized_expression", true) as usize;
        let ident = lang.id_for_node_kind("identifier", true) as usize;
        let bits = &g.type_sets[cond.types as usize];
        assert!(bits[paren / 64] >> (paren % 64) & 1 == 1);
        assert!(bits[ident / 64] >> (ident % 64) & 1 == 0);
        let block = lang.id_for_node_kind("compound_statement", true);
        let items = &g.type_sets[g.slot(block, 0).unwrap().types as usize];
        assert!(items[ident / 64] >> (ident % 64) & 1 == 0);
        let ret = lang.id_for_node_kind("return_statement", true) as usize;
        assert!(items[ret / 64] >> (ret % 64) & 1 == 1);
    }
}
