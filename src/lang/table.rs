//! What the rewrite passes know about a language, as data: node kinds by name (resolved through
//! the grammar at run time, never by numeric id) and the smallest text of each kind. One table
//! per language: C's and C++'s in [`super::c`] and [`super::cpp`], every other language's in its
//! `crate::lang` file (built on [`RewriteTable::NONE`]: a kind it leaves empty matches no node,
//! so the passes that need it list nothing there). [`for_language`] picks it from the registry.

/// How the final canonical layout treats a language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Left as reduced.
    Keep,
    /// Braces and semicolons: one statement a line, 4-space indentation by nesting depth
    /// ([`super::layout`]).
    Braces,
    /// Indentation-sensitive: only re-indented, 4 spaces a block ([`super::indent`]).
    Indent,
}

/// What the passes need to know about one language.
pub struct RewriteTable {
    /// The smallest expression, block, type and string.
    pub zero: &'static str,
    pub empty_block: &'static str,
    pub small_type: &'static str,
    pub empty_string: &'static str,
    pub empty_params: &'static str,
    /// What a function body becomes when the definition turns into a declaration.
    pub declaration_end: &'static str,
    /// The languages without prototypes: functions (each with a `body` field) whose body may
    /// become `stub_body`, a body that fits every return type (Rust's `{loop{}}`), so that what
    /// only bodies used can go. In C++ the stub is for the definitions that cannot become
    /// declarations (out-of-line members, `int A::f() {..}`).
    pub stub_functions: &'static [&'static str],
    pub stub_body: &'static str,
    /// A first line that silences the compiler's warnings (Rust's `#![allow(warnings)]`),
    /// tried once before the reduction and kept while the test needs it: a test that reads
    /// the compiler's last line exactly (`aborting due to 1 previous error`) rejects every
    /// candidate that leaves a name unused, unless its warnings are off.
    pub quiet_prelude: &'static str,
    /// Expression kinds that `zero` may replace.
    pub expressions: &'static [&'static str],
    /// Kinds whose text is an identifier (a name declared or used).
    pub names: &'static [&'static str],
    /// Name kinds that identifier merging renames (not struct fields or labels); tree-sitter-c
    /// parses common typedef names (`size_t`) as primitive types.
    pub mergeable: &'static [&'static str],
    /// Kinds that hold macro bodies as raw text: identifiers inside count as uses.
    pub raw_text: &'static [&'static str],
    /// Kinds whose named children are items that the bulk passes delete or strip (the file; in
    /// C++ also namespace and class bodies).
    pub item_lists: &'static [&'static str],
    /// The item lists that only scope names (the file; C++ namespace and `extern "C"` bodies):
    /// an item with one of them as a child is a container, not a unit of the closure pass.
    pub scopes: &'static [&'static str],
    /// Items that bring a name into scope (`using a::b;`): they declare the last name of their
    /// child.
    pub using_declarations: &'static [&'static str],
    /// Declarator names that name a member of another scope (`A::f`): a definition there cannot
    /// become a declaration.
    pub qualified_names: &'static [&'static str],
    /// The names of operator overloads (`operator&`): the closure pass ties them to their
    /// parameters' types, since `a & b` uses `operator&` without naming it.
    pub operator_names: &'static [&'static str],
    /// Items that wrap other items (`template<...> item`): they declare what the wrapped ones do.
    pub item_wrappers: &'static [&'static str],
    /// A constructor's `: a(x), b(y)` before its body: goes with the body.
    pub initializer_list: Option<&'static str>,
    /// Whether the place that declares a name counts as a use of it for the unreferenced pass
    /// (then a prototype keeps its definition alive, and the other way round).
    pub declarations_are_uses: bool,
    /// Names the language calls without naming them (JavaScript's `constructor`): the
    /// unreferenced pass never takes an item that declares one.
    pub implicit_uses: &'static [&'static str],
    /// Items named by another field than `name_field` (JavaScript's class fields, by
    /// `property`): (kind, field).
    pub named_by: &'static [(&'static str, &'static str)],
    /// Whether class bodies (`field_declaration_list`) are opened by the keep-closure pass:
    /// each member a unit that needs its class (C++, where libstdc++ classes are huge).
    pub member_lists: bool,
    /// Function definitions, their body field, and the field naming a declarator.
    pub function_definition: &'static str,
    pub body_field: &'static str,
    pub declarator_field: &'static str,
    pub type_field: &'static str,
    pub name_field: &'static str,
    /// Declarations whose names are declared by members: struct fields and enum members.
    pub field_declaration: &'static str,
    pub enumerator: &'static str,
    /// Kinds that bind a name: the item declares the name of their `name` field (macros; C++
    /// namespaces and aliases).
    pub named_items: &'static [&'static str],
    /// Children of an item that each declare the name of their `name` field (JavaScript's
    /// `var a = 1, b;`, whose declarators sit in no field).
    pub declarators: &'static [&'static str],
    /// List elements (or statements) that may go together with the declaration they name when
    /// every other use of its names is in such an element (an export table's `f: f`, a
    /// statement `lib.f = f;`): the unreferenced pass deletes the declaration with them, which
    /// no deletion of either alone can.
    pub reference_elements: &'static [&'static str],
    pub tagged_types: &'static [&'static str],
    /// `(e)`, `c ? a : b`, `return e;`, a block, a parameter list, an initialized declarator.
    pub parenthesized: &'static str,
    pub conditional: &'static str,
    pub return_statement: &'static str,
    pub block: &'static str,
    pub parameter_list: &'static str,
    pub init_declarator: &'static str,
    /// `a[3]` where it declares an array, `a[i]` where it reads one, and `{1, 2}`, a brace
    /// initializer (the array passes).
    pub array_declarator: &'static str,
    pub subscript: &'static str,
    pub brace_initializer: &'static str,
    /// Statements `kind (head) body` that may become their body (field `consequence`/`body`).
    pub guarded: &'static [(&'static str, &'static str)],
    /// Nodes around a statement that only carry a keyword (`else S`): the statement is inside.
    pub wrappers: &'static [&'static str],
    pub string_literals: &'static [&'static str],
    pub char_literal: &'static str,
    pub number_literal: &'static str,
    /// Types that `small_type` may replace.
    pub types: &'static [&'static str],
    /// Names that are types only where they fill a `type` field (C++'s `std::string s;`;
    /// elsewhere the same kinds name structs, declarators or scopes): `small_type` replaces
    /// them there.
    pub named_types: &'static [&'static str],
    /// Declarations that identifier merging may delete once their name has no use left, and
    /// the kinds that make one a function or a type.
    pub declarations: &'static [&'static str],
    /// Items named by their `name` field that identifier merging may merge as functions and as
    /// types (the languages without C's declarators: Rust's `fn`, Python's `def` and `class`).
    pub merged_functions: &'static [&'static str],
    pub merged_types: &'static [&'static str],
    pub function_declarator: &'static str,
    pub parameter_declaration: &'static str,
    /// Calls and the fields of calls and function declarators.
    pub call: &'static str,
    pub function_field: &'static str,
    pub arguments_field: &'static str,
    pub parameters_field: &'static str,
    pub type_definition: &'static str,
    /// Layout: keywords followed by a space before `(`, operators spaced when binary, nodes
    /// whose braces open an indented block, preprocessor lines.
    pub keywords_before_paren: &'static [&'static str],
    pub binary_parents: &'static [&'static str],
    pub block_braces: &'static [&'static str],
    pub preprocessor_prefix: &'static str,
    pub comment: &'static str,
    /// Tokens never spaced from their neighbours (`::`), and lists whose angle brackets are
    /// tight (`vector<int>`).
    pub tight_tokens: &'static [&'static str],
    pub angle_lists: &'static [&'static str],
    /// Labels whose `:` ends the line (C++'s `public:`).
    pub line_labels: &'static [&'static str],
    /// Kinds that can simply go: qualifiers, storage classes, attributes.
    pub droppable: &'static [&'static str],
    /// Compound statements of an indentation-sensitive language that may become one of their
    /// blocks (`block`), dedented ([`super::hoist`]).
    pub indented_compounds: &'static [&'static str],
    pub layout: Layout,
    /// Whether a deletion round stops at 3/4 of its tokens to run the bulk passes by name again
    /// (see the driver's `YIELD_SHARE`). Measured per language: JavaScript bundles shed their
    /// dead code that way (underscore at a 160 s cap: 4,068 -> 2,474 tokens) and snappy's C++
    /// ends smaller (23 -> 19 tokens), but the C cases' restarted rounds took other paths to
    /// larger local minima (zlib-inflate 12 -> 27 tokens, lparser 23 -> 32).
    pub bulk_between_rounds: bool,
    /// Whether the grammar reads every program the language's tools accept: then every pass's
    /// candidates that parse worse than the best are skipped untested (the token windows too).
    /// Not C's: the tests accept what tree-sitter-c does not model (gnu89's `main() {}`).
    pub faithful_grammar: bool,
    /// Functions that name their parameters where they are defined and calls that may pass
    /// them by keyword (Python's `def f(self, a, b=1)` called as `o.f(1, b=2)`): what
    /// [`crate::passes::keywords`] needs. `None`: C's declarators only.
    pub keyword_params: Option<KeywordParams>,
}

/// See [`RewriteTable::keyword_params`].
#[derive(Clone, Copy)]
pub struct KeywordParams {
    /// A function definition (fields `name`, `parameters`; calls have `function` and
    /// `arguments`) and the class whose body holds
    /// methods (its `name` is what a call of the class calls).
    pub definition: &'static str,
    pub class: &'static str,
    /// A definition wrapped in decorators, whose signature may not be the call's.
    pub decorated: &'static str,
    /// The methods a call of their class runs, with the class's arguments.
    pub constructors: &'static [&'static str],
    /// A callee `o.f`, its `attribute` field the name.
    pub attribute: &'static str,
    /// A call's list of arguments (field `arguments`; not a generator argument `f(x for ..)`).
    pub arguments: &'static str,
    /// `name=value` at a call (fields `name`, `value`).
    pub keyword_argument: &'static str,
    /// Parameters that take a name and a default (field `name`), and a name with a type.
    pub defaulted: &'static [&'static str],
    pub typed: &'static str,
    /// Arguments (`*a`, `**k`) and parameters (`*`, `*a`, `/`, `**k`) that make positions or
    /// names unknowable: a function or call with one is left alone, except that parameters
    /// after a `*` or `*a` are keyword-only.
    pub splat_arguments: &'static [&'static str],
    pub keyword_only_markers: &'static [&'static str],
    pub other_markers: &'static [&'static str],
}

impl RewriteTable {
    /// The table that knows no kind: every pass that needs one lists nothing. Other languages'
    /// tables fill in what they have (`..RewriteTable::NONE`).
    pub const NONE: RewriteTable = RewriteTable {
        zero: "",
        empty_block: "",
        small_type: "",
        empty_string: "",
        empty_params: "",
        declaration_end: "",
        stub_functions: &[],
        stub_body: "",
        quiet_prelude: "",
        expressions: &[],
        names: &[],
        mergeable: &[],
        raw_text: &[],
        item_lists: &[],
        scopes: &[],
        using_declarations: &[],
        qualified_names: &[],
        operator_names: &[],
        item_wrappers: &[],
        initializer_list: None,
        declarations_are_uses: false,
        implicit_uses: &[],
        named_by: &[],
        member_lists: false,
        function_definition: "",
        body_field: "",
        declarator_field: "",
        type_field: "",
        name_field: "",
        field_declaration: "",
        enumerator: "",
        named_items: &[],
        declarators: &[],
        reference_elements: &[],
        tagged_types: &[],
        parenthesized: "",
        conditional: "",
        return_statement: "",
        block: "",
        parameter_list: "",
        init_declarator: "",
        array_declarator: "",
        subscript: "",
        brace_initializer: "",
        guarded: &[],
        wrappers: &[],
        string_literals: &[],
        char_literal: "",
        number_literal: "",
        types: &[],
        named_types: &[],
        declarations: &[],
        merged_functions: &[],
        merged_types: &[],
        function_declarator: "",
        parameter_declaration: "",
        call: "",
        function_field: "",
        arguments_field: "",
        parameters_field: "",
        type_definition: "",
        keywords_before_paren: &[],
        binary_parents: &[],
        block_braces: &[],
        preprocessor_prefix: "",
        comment: "",
        tight_tokens: &[],
        angle_lists: &[],
        line_labels: &[],
        droppable: &[],
        indented_compounds: &[],
        layout: Layout::Keep,
        bulk_between_rounds: false,
        faithful_grammar: true,
        keyword_params: None,
    };

    /// Every node kind the table names (for the check that each is a kind of its grammar).
    pub fn kinds(&self) -> Vec<&'static str> {
        let singles = [
            self.function_definition,
            self.field_declaration,
            self.enumerator,
            self.parenthesized,
            self.conditional,
            self.return_statement,
            self.block,
            self.parameter_list,
            self.init_declarator,
            self.array_declarator,
            self.subscript,
            self.brace_initializer,
            self.char_literal,
            self.number_literal,
            self.function_declarator,
            self.parameter_declaration,
            self.call,
            self.type_definition,
            self.comment,
        ];
        let lists = [
            self.expressions,
            self.names,
            self.mergeable,
            self.raw_text,
            self.item_lists,
            self.scopes,
            self.named_items,
            self.merged_functions,
            self.merged_types,
            self.declarators,
            self.reference_elements,
            self.tagged_types,
            self.wrappers,
            self.string_literals,
            self.types,
            self.declarations,
            self.droppable,
            self.indented_compounds,
            self.stub_functions,
        ];
        let guarded = self.guarded.iter().map(|(k, _)| *k);
        let keyword: Vec<&'static str> = match &self.keyword_params {
            Some(k) => [
                k.definition,
                k.class,
                k.decorated,
                k.attribute,
                k.arguments,
                k.keyword_argument,
                k.typed,
            ]
            .into_iter()
            .chain(k.defaulted.iter().copied())
            .chain(k.splat_arguments.iter().copied())
            .chain(k.keyword_only_markers.iter().copied())
            .chain(k.other_markers.iter().copied())
            .collect(),
            None => Vec::new(),
        };
        singles
            .into_iter()
            .chain(lists.into_iter().flatten().copied())
            .chain(guarded)
            .chain(keyword)
            .filter(|k| !k.is_empty())
            .collect()
    }
}

/// The rewrite table of a grammar by its name (`--lang`): every language of the registry has one.
pub fn for_language(name: &str) -> Option<&'static RewriteTable> {
    crate::lang::by_name(name).map(|l| l.rewrite)
}

/// `a` then `b`, at compile time: a language whose table extends another's lists (TypeScript's
/// expressions are JavaScript's and three more) names only what it adds. `N` must be the sum.
pub const fn concat<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "concat: N must be the sum of the lengths");
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}
