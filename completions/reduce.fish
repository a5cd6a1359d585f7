complete -c reduce -s t -l test -d 'The interestingness test: a script, run with the candidate\'s path as $1 (exit 0 = interesting)' -r -F
complete -c reduce -s c -l command -d 'The test as a shell command, run with `sh -c`: each {} becomes the candidate\'s path (quoted; do not quote it again), which is also $1' -r
complete -c reduce -l exit-code -d 'Interesting when the test exits with this status (0 to 255) [default: 0; with --same-failure: the original\'s ending]' -r
complete -c reduce -l signal -d 'Interesting when the test is killed by a signal: any, or the one named (SEGV, ABRT, ...; a sanitizer report that aborts is ABRT)' -r
complete -c reduce -l stdout -d 'Interesting when the test\'s stdout matches this regex (its first 4 MiB and last 1 MiB)' -r
complete -c reduce -l stderr -d 'Interesting when the test\'s stderr matches this regex (its first 4 MiB and last 1 MiB)' -r
complete -c reduce -l save-slipped -d 'With --same-failure: write each candidate that fails another way (another bug) to DIR, the smallest per failure, listed in DIR/signatures.json' -r -F
complete -c reduce -l report -d 'Write a bug report to DIR (a new or empty directory): the reduced input, the command, a repro.sh that shows the failure, the signature and a README.md' -r -F
complete -c reduce -l timeout -d 'Seconds before a test run is killed and counted as not interesting [default: 10x the original\'s test time, between 1 and 300]' -r
complete -c reduce -s j -l jobs -d 'Run this many tests at once, at most 1024 (the result does not depend on it) [default: number of cores]' -r
complete -c reduce -l temp-dir -d 'Where candidates are written and tests run [default: $TMPDIR]' -r -F
complete -c reduce -l launcher -d 'Run each test as a job through this command prefix, e.g. \'srun -Q -J {name} --chdir={dir} --\' ({dir}: the candidate\'s directory, {name}: a job name unique to the run, {timeout}: seconds). The timeout is enforced inside the job; -j is the number of jobs in flight' -r
complete -c reduce -l work-dir -d 'Where candidate directories are created for --launcher: a directory every node sees at the same path (a shared filesystem) [default: --temp-dir]' -r -F
complete -c reduce -s a -l algo -d 'Reduction algorithm [default: perses for text (a grammar\'s tree, or the bracket tree), ddmin for binary files: lines, then single bytes up to 16 KiB]' -r -f -a "ddmin\t'Delta debugging over lines (or chars with --unit char)'
bytes\t'Chunk deletion over raw bytes, certified one-minimal'
hdd\t'Hierarchical delta debugging over the parse tree'
perses\t'Syntax-guided reduction: node replacement plus list deletion'"
complete -c reduce -l unit -d 'What ddmin deletes' -r -f -a "line\t''
char\t''"
complete -c reduce -l lang -d 'Parse the input as this language, whatever its extension [default: by extension; text (a tree of lines, brackets and indentation) for any other text file]' -r -f -a "c\t''
cpp\t''
rust\t''
python\t''
javascript\t''
typescript\t''
tsx\t''
go\t''
java\t''
json\t''
bash\t''
lua\t''
text\t''"
complete -c reduce -l max-attempts -d 'At most this many test runs in all, the check of the original included (the best result so far is kept)' -r
complete -c reduce -l cache-size -d 'Bound of the persistent cache, in bytes or with a K, M or G suffix (the least recently used tests\' verdicts go first)' -r
complete -c reduce -l max-stdin -d 'With INPUT \'-\': read at most this many bytes from stdin, in bytes or with a K, M or G suffix; a longer stream stops the run (exit 4) before any test runs' -r
complete -c reduce -s o -l output -d 'Write the result here instead of in place (\'-\' = stdout; a directory for several files)' -r -F
complete -c reduce -l stats-json -d 'Write a JSON record of the run here' -r -F
complete -c reduce -l generate-completions -d 'Print shell completions and exit' -r -f -a "bash\t''
elvish\t''
fish\t''
powershell\t''
zsh\t''"
complete -c reduce -l same-failure -d 'Interesting when the test fails as the original does: the same crash, sanitizer report, exception or diagnostic, and no new kind of error before it (the failure kept is printed first; no script needed: -- COMPILER FLAGS @@)'
complete -c reduce -l show-signature -d 'Print the original\'s failure signature (what --same-failure keeps) and exit'
complete -c reduce -l reduce-args -d 'After the input, reduce the arguments after -- too (all but the program and @@): drop those the failure does not need, lower -O levels; print the smallest failing command'
complete -c reduce -l preprocess -d 'When the program after -- is a C or C++ compiler and the input includes local headers: reduce the preprocessed input (-E -P with the command\'s -I/-D/-std/... flags) instead; needs -o'
complete -c reduce -l check-determinism -d 'Run the test on the original 3 more times and warn if it ever flips (by default it is re-run once when a run takes under half a second)'
complete -c reduce -l no-prefilter -d 'Hand the test candidates that parse worse than the current best (tree algorithms)'
complete -c reduce -l no-cache -d 'Run the test again on byte-identical candidates'
complete -c reduce -l no-persistent-cache -d 'Keep no verdicts on disk and read none: no resume of an interrupted run either (by default "not interesting" verdicts are kept in $XDG_CACHE_HOME/reduce, else ~/.cache/reduce, per test script and input name)'
complete -c reduce -l clear-cache -d 'Remove the persistent cache (verdicts and resume records) and exit'
complete -c reduce -l no-rewrites -d 'Only delete (perses): no rewrite passes (expressions to 0, definitions to declarations, ...)'
complete -c reduce -l thorough -d 'No give-up rules: rewrite passes try every candidate (slower, sometimes smaller)'
complete -c reduce -l rename -d 'Give every name the file declares a short one (a, b, ...) at the end (perses, C): fewer bytes, same tokens, harder to map back to the original'
complete -c reduce -l delete-files -d 'Several files or a directory: a file may disappear from the result, not only become empty'
complete -c reduce -l force -d 'Back up over an existing, different INPUT.orig (the old one is kept as INPUT.orig.N); overwrite a read-only -o file'
complete -c reduce -l no-format -d 'Keep the result\'s raw layout (by default a perses result is laid out one statement per line with 4-space indentation, if the test still accepts it)'
complete -c reduce -l compact -d 'Lay the result out in the fewest bytes instead (a space only where two tokens would run together, a line break only where the language needs one; kept only if the test still accepts it): with --rename, the smallest file reduce gives'
complete -c reduce -s q -l quiet -d 'Print nothing but errors'
complete -c reduce -s v -l verbose -d 'Show the test\'s command line, output and exit status for the first runs and for every timeout'
complete -c reduce -l generate-man -d 'Print the man page (roff) and exit'
complete -c reduce -l dump-tree -d 'Print the reduction tree of INPUT and exit (for debugging)'
complete -c reduce -s h -l help -d 'Print help (see more with \'--help\')'
complete -c reduce -s V -l version -d 'Print version'
