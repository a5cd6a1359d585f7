
use builtin;
use str;

set edit:completion:arg-completer[reduce] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'reduce'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'reduce'= {
            cand -t 'The interestingness test: a script, run with the candidate''s path as $1 (exit 0 = interesting)'
            cand --test 'The interestingness test: a script, run with the candidate''s path as $1 (exit 0 = interesting)'
            cand -c 'The test as a shell command, run with `sh -c`: each {} becomes the candidate''s path (quoted; do not quote it again), which is also $1'
            cand --command 'The test as a shell command, run with `sh -c`: each {} becomes the candidate''s path (quoted; do not quote it again), which is also $1'
            cand --exit-code 'Interesting when the test exits with this status (0 to 255) [default: 0; with --same-failure: the original''s ending]'
            cand --signal 'Interesting when the test is killed by a signal: any, or the one named (SEGV, ABRT, ...; a sanitizer report that aborts is ABRT)'
            cand --stdout 'Interesting when the test''s stdout matches this regex (its first 4 MiB and last 1 MiB)'
            cand --stderr 'Interesting when the test''s stderr matches this regex (its first 4 MiB and last 1 MiB)'
            cand --save-slipped 'With --same-failure: write each candidate that fails another way (another bug) to DIR, the smallest per failure, listed in DIR/signatures.json'
            cand --report 'Write a bug report to DIR (a new or empty directory): the reduced input, the command, a repro.sh that shows the failure, the signature and a README.md'
            cand --timeout 'Seconds before a test run is killed and counted as not interesting [default: 10x the original''s test time, between 1 and 300]'
            cand -j 'Run this many tests at once, at most 1024 (the result does not depend on it) [default: number of cores]'
            cand --jobs 'Run this many tests at once, at most 1024 (the result does not depend on it) [default: number of cores]'
            cand --temp-dir 'Where candidates are written and tests run [default: $TMPDIR]'
            cand --launcher 'Run each test as a job through this command prefix, e.g. ''srun -Q -J {name} --chdir={dir} --'' ({dir}: the candidate''s directory, {name}: a job name unique to the run, {timeout}: seconds). The timeout is enforced inside the job; -j is the number of jobs in flight'
            cand --work-dir 'Where candidate directories are created for --launcher: a directory every node sees at the same path (a shared filesystem) [default: --temp-dir]'
            cand -a 'Reduction algorithm [default: perses for text (a grammar''s tree, or the bracket tree), ddmin for binary files: lines, then single bytes up to 16 KiB]'
            cand --algo 'Reduction algorithm [default: perses for text (a grammar''s tree, or the bracket tree), ddmin for binary files: lines, then single bytes up to 16 KiB]'
            cand --unit 'What ddmin deletes'
            cand --lang 'Parse the input as this language, whatever its extension [default: by extension; text (a tree of lines, brackets and indentation) for any other text file]'
            cand --max-attempts 'At most this many test runs in all, the check of the original included (the best result so far is kept)'
            cand --cache-size 'Bound of the persistent cache, in bytes or with a K, M or G suffix (the least recently used tests'' verdicts go first)'
            cand --max-stdin 'With INPUT ''-'': read at most this many bytes from stdin, in bytes or with a K, M or G suffix; a longer stream stops the run (exit 4) before any test runs'
            cand -o 'Write the result here instead of in place (''-'' = stdout; a directory for several files)'
            cand --output 'Write the result here instead of in place (''-'' = stdout; a directory for several files)'
            cand --stats-json 'Write a JSON record of the run here'
            cand --generate-completions 'Print shell completions and exit'
            cand --same-failure 'Interesting when the test fails as the original does: the same crash, sanitizer report, exception or diagnostic, and no new kind of error before it (the failure kept is printed first; no script needed: -- COMPILER FLAGS @@)'
            cand --show-signature 'Print the original''s failure signature (what --same-failure keeps) and exit'
            cand --reduce-args 'After the input, reduce the arguments after -- too (all but the program and @@): drop those the failure does not need, lower -O levels; print the smallest failing command'
            cand --preprocess 'When the program after -- is a C or C++ compiler and the input includes local headers: reduce the preprocessed input (-E -P with the command''s -I/-D/-std/... flags) instead; needs -o'
            cand --check-determinism 'Run the test on the original 3 more times and warn if it ever flips (by default it is re-run once when a run takes under half a second)'
            cand --no-prefilter 'Hand the test candidates that parse worse than the current best (tree algorithms)'
            cand --no-cache 'Run the test again on byte-identical candidates'
            cand --no-persistent-cache 'Keep no verdicts on disk and read none: no resume of an interrupted run either (by default "not interesting" verdicts are kept in $XDG_CACHE_HOME/reduce, else ~/.cache/reduce, per test script and input name)'
            cand --clear-cache 'Remove the persistent cache (verdicts and resume records) and exit'
            cand --no-rewrites 'Only delete (perses): no rewrite passes (expressions to 0, definitions to declarations, ...)'
            cand --thorough 'No give-up rules: rewrite passes try every candidate (slower, sometimes smaller)'
            cand --rename 'Give every name the file declares a short one (a, b, ...) at the end (perses, C): fewer bytes, same tokens, harder to map back to the original'
            cand --delete-files 'Several files or a directory: a file may disappear from the result, not only become empty'
            cand --force 'Back up over an existing, different INPUT.orig (the old one is kept as INPUT.orig.N); overwrite a read-only -o file'
            cand --no-format 'Keep the result''s raw layout (by default a perses result is laid out one statement per line with 4-space indentation, if the test still accepts it)'
            cand --compact 'Lay the result out in the fewest bytes instead (a space only where two tokens would run together, a line break only where the language needs one; kept only if the test still accepts it): with --rename, the smallest file reduce gives'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'Show the test''s command line, output and exit status for the first runs and for every timeout'
            cand --verbose 'Show the test''s command line, output and exit status for the first runs and for every timeout'
            cand --generate-man 'Print the man page (roff) and exit'
            cand --dump-tree 'Print the reduction tree of INPUT and exit (for debugging)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
    ]
    $completions[$command]
}
