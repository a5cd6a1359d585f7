//! Before the first run: can the program after `--` be started? A name with a `/` is a path
//! (relative to the directory `reduce` was started in: the test itself runs elsewhere); a bare
//! name is looked up on `PATH`, as a shell would.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::bail;

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
    let full = path.display();
    let metadata = match fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            bail!("the program {full} (after --) does not exist; check its path")
        }
        Err(e) => bail!("cannot access the program {full} (after --): {e}"),
    };
    if metadata.is_dir() {
        bail!("the program {full} (after --) is a directory; give an executable file");
    }
    if metadata.permissions().mode() & 0o111 == 0 {
        bail!("the program {full} (after --) is not executable; run `chmod +x {full}`");
    }
    Ok(path)
}

/// The first executable file called `name` in a `PATH` directory.
fn search_path(name: &Path) -> Option<PathBuf> {
    let dirs = std::env::var_os("PATH")?;
    std::env::split_paths(&dirs)
        .map(|dir| dir.join(name))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::Permissions;

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
