#!/bin/bash
# Interesting iff clang++ 14 -std=c++20 -fsyntax-only crashes (exit 139, "PLEASE submit a bug
# report") while it parses an alias declaration, in constraint checking: the stack dump's named
# frames hold, in this order, clang::Expr::EvaluateAsConstantExpr,
# clang::Sema::CheckConstraintSatisfaction, clang::Sema::EnsureTemplateArgumentListConstraints,
# clang::Sema::CheckTemplateArgumentList and clang::Parser::ParseAliasDeclarationAfterDeclarator;
# and no error is reported before the crash (-w silences the warnings libstdc++'s headers get
# once they are no system headers). -fno-crash-diagnostics: no reproducer files in /tmp.
f="${1:-input.cc}"
out=$(LC_ALL=C /usr/bin/timeout 30 /usr/bin/clang++ -std=c++20 -fsyntax-only -fno-crash-diagnostics \
  -w -fno-color-diagnostics "$f" 2>&1)
rc=$?
[ "$rc" -eq 139 ] || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  / error: / && !crashed { bad = 1 }
  /^PLEASE submit a bug report/ { crashed = 1 }
  crashed && /^ *#[0-9]+ / {
    if (step == 0 && index($0, " clang::Expr::EvaluateAsConstantExpr(")) step = 1
    else if (step == 1 && index($0, " clang::Sema::CheckConstraintSatisfaction(")) step = 2
    else if (step == 2 && index($0, " clang::Sema::EnsureTemplateArgumentListConstraints(")) step = 3
    else if (step == 3 && index($0, " clang::Sema::CheckTemplateArgumentList(")) step = 4
    else if (step == 4 && index($0, " clang::Parser::ParseAliasDeclarationAfterDeclarator(")) step = 5
  }
  END { exit !(crashed && step == 5 && !bad) }'
