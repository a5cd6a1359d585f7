
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'reduce' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'reduce'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'reduce' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'The interestingness test: a script, run with the candidate''s path as $1 (exit 0 = interesting)')
            [CompletionResult]::new('--test', '--test', [CompletionResultType]::ParameterName, 'The interestingness test: a script, run with the candidate''s path as $1 (exit 0 = interesting)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The test as a shell command, run with `sh -c`: each {} becomes the candidate''s path (quoted; do not quote it again), which is also $1')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'The test as a shell command, run with `sh -c`: each {} becomes the candidate''s path (quoted; do not quote it again), which is also $1')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Interesting when the test exits with this status (0 to 255) [default: 0; with --same-failure: the original''s ending]')
            [CompletionResult]::new('--signal', '--signal', [CompletionResultType]::ParameterName, 'Interesting when the test is killed by a signal: any, or the one named (SEGV, ABRT, ...; a sanitizer report that aborts is ABRT)')
            [CompletionResult]::new('--stdout', '--stdout', [CompletionResultType]::ParameterName, 'Interesting when the test''s stdout matches this regex (its first 4 MiB and last 1 MiB)')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Interesting when the test''s stderr matches this regex (its first 4 MiB and last 1 MiB)')
            [CompletionResult]::new('--save-slipped', '--save-slipped', [CompletionResultType]::ParameterName, 'With --same-failure: write each candidate that fails another way (another bug) to DIR, the smallest per failure, listed in DIR/signatures.json')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Write a bug report to DIR (a new or empty directory): the reduced input, the command, a repro.sh that shows the failure, the signature and a README.md')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds before a test run is killed and counted as not interesting [default: 10x the original''s test time, between 1 and 300]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Run this many tests at once, at most 1024 (the result does not depend on it) [default: number of cores]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Run this many tests at once, at most 1024 (the result does not depend on it) [default: number of cores]')
            [CompletionResult]::new('--temp-dir', '--temp-dir', [CompletionResultType]::ParameterName, 'Where candidates are written and tests run [default: $TMPDIR]')
            [CompletionResult]::new('--launcher', '--launcher', [CompletionResultType]::ParameterName, 'Run each test as a job through this command prefix, e.g. ''srun -Q -J {name} --chdir={dir} --'' ({dir}: the candidate''s directory, {name}: a job name unique to the run, {timeout}: seconds). The timeout is enforced inside the job; -j is the number of jobs in flight')
            [CompletionResult]::new('--work-dir', '--work-dir', [CompletionResultType]::ParameterName, 'Where candidate directories are created for --launcher: a directory every node sees at the same path (a shared filesystem) [default: --temp-dir]')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Reduction algorithm [default: perses for text (a grammar''s tree, or the bracket tree), ddmin for binary files: lines, then single bytes up to 16 KiB]')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Reduction algorithm [default: perses for text (a grammar''s tree, or the bracket tree), ddmin for binary files: lines, then single bytes up to 16 KiB]')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'What ddmin deletes')
            [CompletionResult]::new('--lang', '--lang', [CompletionResultType]::ParameterName, 'Parse the input as this language, whatever its extension [default: by extension; text (a tree of lines, brackets and indentation) for any other text file]')
            [CompletionResult]::new('--max-attempts', '--max-attempts', [CompletionResultType]::ParameterName, 'At most this many test runs in all, the check of the original included (the best result so far is kept)')
            [CompletionResult]::new('--cache-size', '--cache-size', [CompletionResultType]::ParameterName, 'Bound of the persistent cache, in bytes or with a K, M or G suffix (the least recently used tests'' verdicts go first)')
            [CompletionResult]::new('--max-stdin', '--max-stdin', [CompletionResultType]::ParameterName, 'With INPUT ''-'': read at most this many bytes from stdin, in bytes or with a K, M or G suffix; a longer stream stops the run (exit 4) before any test runs')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the result here instead of in place (''-'' = stdout; a directory for several files)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the result here instead of in place (''-'' = stdout; a directory for several files)')
            [CompletionResult]::new('--stats-json', '--stats-json', [CompletionResultType]::ParameterName, 'Write a JSON record of the run here')
            [CompletionResult]::new('--generate-completions', '--generate-completions', [CompletionResultType]::ParameterName, 'Print shell completions and exit')
            [CompletionResult]::new('--same-failure', '--same-failure', [CompletionResultType]::ParameterName, 'Interesting when the test fails as the original does: the same crash, sanitizer report, exception or diagnostic, and no new kind of error before it (the failure kept is printed first; no script needed: -- COMPILER FLAGS @@)')
            [CompletionResult]::new('--show-signature', '--show-signature', [CompletionResultType]::ParameterName, 'Print the original''s failure signature (what --same-failure keeps) and exit')
            [CompletionResult]::new('--reduce-args', '--reduce-args', [CompletionResultType]::ParameterName, 'After the input, reduce the arguments after -- too (all but the program and @@): drop those the failure does not need, lower -O levels; print the smallest failing command')
            [CompletionResult]::new('--preprocess', '--preprocess', [CompletionResultType]::ParameterName, 'When the program after -- is a C or C++ compiler and the input includes local headers: reduce the preprocessed input (-E -P with the command''s -I/-D/-std/... flags) instead; needs -o')
            [CompletionResult]::new('--check-determinism', '--check-determinism', [CompletionResultType]::ParameterName, 'Run the test on the original 3 more times and warn if it ever flips (by default it is re-run once when a run takes under half a second)')
            [CompletionResult]::new('--no-prefilter', '--no-prefilter', [CompletionResultType]::ParameterName, 'Hand the test candidates that parse worse than the current best (tree algorithms)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Run the test again on byte-identical candidates')
            [CompletionResult]::new('--no-persistent-cache', '--no-persistent-cache', [CompletionResultType]::ParameterName, 'Keep no verdicts on disk and read none: no resume of an interrupted run either (by default "not interesting" verdicts are kept in $XDG_CACHE_HOME/reduce, else ~/.cache/reduce, per test script and input name)')
            [CompletionResult]::new('--clear-cache', '--clear-cache', [CompletionResultType]::ParameterName, 'Remove the persistent cache (verdicts and resume records) and exit')
            [CompletionResult]::new('--no-rewrites', '--no-rewrites', [CompletionResultType]::ParameterName, 'Only delete (perses): no rewrite passes (expressions to 0, definitions to declarations, ...)')
            [CompletionResult]::new('--thorough', '--thorough', [CompletionResultType]::ParameterName, 'No give-up rules: rewrite passes try every candidate (slower, sometimes smaller)')
            [CompletionResult]::new('--rename', '--rename', [CompletionResultType]::ParameterName, 'Give every name the file declares a short one (a, b, ...) at the end (perses, C): fewer bytes, same tokens, harder to map back to the original')
            [CompletionResult]::new('--delete-files', '--delete-files', [CompletionResultType]::ParameterName, 'Several files or a directory: a file may disappear from the result, not only become empty')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Back up over an existing, different INPUT.orig (the old one is kept as INPUT.orig.N); overwrite a read-only -o file')
            [CompletionResult]::new('--no-format', '--no-format', [CompletionResultType]::ParameterName, 'Keep the result''s raw layout (by default a perses result is laid out one statement per line with 4-space indentation, if the test still accepts it)')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Lay the result out in the fewest bytes instead (a space only where two tokens would run together, a line break only where the language needs one; kept only if the test still accepts it): with --rename, the smallest file reduce gives')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the test''s command line, output and exit status for the first runs and for every timeout')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the test''s command line, output and exit status for the first runs and for every timeout')
            [CompletionResult]::new('--generate-man', '--generate-man', [CompletionResultType]::ParameterName, 'Print the man page (roff) and exit')
            [CompletionResult]::new('--dump-tree', '--dump-tree', [CompletionResultType]::ParameterName, 'Print the reduction tree of INPUT and exit (for debugging)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
