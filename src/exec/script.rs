//! Before the first run: can the test be started? The `--test` script must be something the
//! kernel can execute; the program after `--` a path (relative to the directory `reduce` was
//! started in: the test itself runs elsewhere) or a bare name found on `PATH`, as a shell would.
//! Each way one cannot (missing, a directory, not executable, no `#!` line, a `#!` line with
//! Windows line endings or a missing interpreter) gets one line naming the problem and the fix.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Checks that the script can be run: resolves `script` against `cwd`, and errs with one line
/// naming the problem and the fix if it is missing, a directory, not executable, or neither
/// starts with `#!` nor is an ELF binary. Returns the absolute path.
pub fn ensure_script_runnable(script: &Path, cwd: &Path) -> anyhow::Result<PathBuf> {
    let path = std::path::absolute(cwd.join(script))
        .with_context(|| format!("cannot resolve the --test script {}", script.display()))?;
    let shown = path.display();
    let what = format!("the --test script {shown}");
    executable(
        &path,
        &what,
        ("check the path given to --test", "give --test"),
    )?;
    let head = read_head(&path).with_context(|| {
        format!("cannot read the --test script {shown}; make it readable (`chmod u+r {shown}`)")
    })?;
    if head.starts_with(b"\x7fELF") {
        return Ok(path);
    }
    if !head.starts_with(b"#!") {
        bail!(
            "the --test script {shown} does not start with `#!`; \
             add an interpreter line such as `#!/bin/sh` as its first line"
        );
    }
    check_interpreter_line(&head, &shown.to_string())?;
    Ok(path)
}

/// The program's absolute path, or an error naming the problem and the fix.
pub fn ensure_program_runnable(program: &Path, cwd: &Path) -> anyhow::Result<PathBuf> {
    let shown = program.display();
    if program.as_os_str().is_empty() {
        bail!(
            "the program after -- is an empty word; give the program to run, e.g. -- ./target @@"
        );
    }
    let path = if program.as_os_str().as_encoded_bytes().contains(&b'/') {
        std::path::absolute(cwd.join(program))?
    } else {
        match search_path(program) {
            Some(found) => found,
            None => bail!(
                "the program {shown} (after --) is not on PATH; give its path, e.g. -- ./{shown} @@"
            ),
        }
    };
    let what = format!("the program {} (after --)", path.display());
    executable(&path, &what, ("check its path", "give"))?;
    Ok(path)
}

/// `path` is an executable file, else one line for `what` with the fixes `(missing, a
/// directory)` call for.
fn executable(path: &Path, what: &str, (missing, dir): (&str, &str)) -> anyhow::Result<()> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!("{what} does not exist; {missing}"),
        Err(e) if what.starts_with("the program") => bail!("cannot access {what}: {e}"),
        Err(e) => bail!("cannot access {what}: {e}; check its permissions"),
    };
    if metadata.is_dir() {
        bail!("{what} is a directory; {dir} an executable file");
    }
    if metadata.permissions().mode() & 0o111 == 0 {
        bail!(
            "{what} is not executable; run `chmod +x {}`",
            path.display()
        );
    }
    Ok(())
}

/// The first executable file called `name` in a `PATH` directory.
fn search_path(name: &Path) -> Option<PathBuf> {
    let dirs = std::env::var_os("PATH")?;
    std::env::split_paths(&dirs)
        .map(|dir| dir.join(name))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The first line of a file, at most 512 bytes of it.
fn read_head(path: &Path) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    File::open(path)?.take(512).read_to_end(&mut head)?;
    if let Some(end) = head.iter().position(|&b| b == b'\n') {
        head.truncate(end);
    }
    Ok(head)
}

/// The `#!` line must name an interpreter that exists, without a Windows line ending (the
/// kernel would look for `/bin/sh\r` and report "No such file or directory" for the script).
fn check_interpreter_line(line: &[u8], shown: &str) -> anyhow::Result<()> {
    if line.ends_with(b"\r") {
        bail!(
            "the `#!` line of the --test script {shown} ends with a carriage return (Windows line endings); \
             convert the script with `sed -i 's/\\r$//' {shown}` or dos2unix"
        );
    }
    let text = String::from_utf8_lossy(&line[2..]);
    let Some(interpreter) = text.split_whitespace().next() else {
        bail!(
            "the `#!` line of the --test script {shown} names no interpreter; write e.g. `#!/bin/sh`"
        );
    };
    match fs::metadata(interpreter) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(()),
        Ok(_) => bail!(
            "the interpreter {interpreter} of the --test script {shown} (its `#!` line) is not an executable file"
        ),
        Err(_) => bail!(
            "the interpreter {interpreter} does not exist (the `#!` line of the --test script {shown}); fix the path, e.g. `#!/bin/sh`"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::Permissions;

    /// Writes an executable `#!/bin/sh` script named `name` with `body` into `dir`.
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn runnable_error(script: &Path, cwd: &Path) -> String {
        format!("{:#}", ensure_script_runnable(script, cwd).unwrap_err())
    }

    #[test]
    fn ensure_script_runnable_resolves_a_relative_path_against_cwd() {
        let scratch = tempfile::tempdir().unwrap();
        let path = script(scratch.path(), "test.sh", "exit 0");
        assert_eq!(
            ensure_script_runnable(Path::new("test.sh"), scratch.path()).unwrap(),
            path
        );
        assert_eq!(ensure_script_runnable(&path, Path::new("/")).unwrap(), path);
    }

    #[test]
    fn ensure_script_runnable_accepts_an_elf_binary() {
        let sh = Path::new("/bin/sh");
        assert_eq!(ensure_script_runnable(sh, Path::new("/tmp")).unwrap(), sh);
    }

    #[test]
    fn ensure_script_runnable_rejects_a_missing_script() {
        let scratch = tempfile::tempdir().unwrap();
        let message = runnable_error(Path::new("nope.sh"), scratch.path());
        assert!(
            message.contains("does not exist") && message.contains("--test"),
            "{message}"
        );
        assert!(message.contains(&*scratch.path().join("nope.sh").to_string_lossy()));
    }

    #[test]
    fn ensure_script_runnable_rejects_a_directory() {
        let scratch = tempfile::tempdir().unwrap();
        let message = runnable_error(scratch.path(), Path::new("/"));
        assert!(
            message.contains("is a directory") && message.contains("--test"),
            "{message}"
        );
    }

    #[test]
    fn ensure_script_runnable_rejects_a_non_executable_script_suggesting_chmod() {
        let scratch = tempfile::tempdir().unwrap();
        let path = script(scratch.path(), "test.sh", "exit 0");
        fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
        let message = runnable_error(&path, Path::new("/"));
        assert!(
            message.contains("not executable") && message.contains("chmod +x"),
            "{message}"
        );
    }

    #[test]
    fn ensure_script_runnable_rejects_a_script_without_a_shebang() {
        let scratch = tempfile::tempdir().unwrap();
        for contents in ["exit 0\n", "", "#"] {
            let path = scratch.path().join("test.sh");
            fs::write(&path, contents).unwrap();
            fs::set_permissions(&path, Permissions::from_mode(0o755)).unwrap();
            let message = runnable_error(&path, Path::new("/"));
            assert!(
                message.contains("#!") && message.contains("--test"),
                "{message}"
            );
        }
    }

    fn error(program: &Path, cwd: &Path) -> String {
        format!("{:#}", ensure_program_runnable(program, cwd).unwrap_err())
    }

    #[test]
    fn a_bare_name_is_found_on_path_and_a_relative_path_in_cwd() {
        let found = ensure_program_runnable(Path::new("sh"), Path::new("/")).unwrap();
        assert!(found.is_absolute() && found.ends_with("sh"), "{found:?}");
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("prog");
        fs::write(&prog, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&prog, Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            ensure_program_runnable(Path::new("./prog"), dir.path()).unwrap(),
            dir.path().join("prog")
        );
    }

    #[test]
    fn missing_directory_and_non_executable_programs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let message = error(Path::new("no-such-program-reduce"), dir.path());
        assert!(message.contains("not on PATH"), "{message}");
        let message = error(Path::new("./nope"), dir.path());
        assert!(message.contains("does not exist"), "{message}");
        let message = error(dir.path(), Path::new("/"));
        assert!(message.contains("is a directory"), "{message}");
        let plain = dir.path().join("plain");
        fs::write(&plain, "x").unwrap();
        let message = error(&plain, Path::new("/"));
        assert!(message.contains("chmod +x"), "{message}");
    }
}
