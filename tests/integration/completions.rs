//! The files in `completions/` (shell completions and the man page `reduce.1`) are generated
//! from the clap definition; this fails when they are out of date. Regenerate them with
//! `REDUCE_BLESS=1 cargo test completions`.

use std::path::Path;
use std::process::Command;

const SHELLS: [(&str, &str); 6] = [
    ("man", "reduce.1"),
    ("bash", "reduce.bash"),
    ("zsh", "_reduce"),
    ("fish", "reduce.fish"),
    ("powershell", "_reduce.ps1"),
    ("elvish", "reduce.elv"),
];

#[test]
fn committed_completions_match_the_command_line_definition() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let bless = std::env::var_os("REDUCE_BLESS").is_some();
    for (shell, file) in SHELLS {
        let args = match shell {
            "man" => vec!["--generate-man"],
            _ => vec!["--generate-completions", shell],
        };
        let out = Command::new(env!("CARGO_BIN_EXE_reduce"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let path = dir.join(file);
        if bless {
            std::fs::write(&path, &out.stdout).unwrap();
            continue;
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == out.stdout,
            "completions/{file} is out of date: run REDUCE_BLESS=1 cargo test completions"
        );
    }
}

#[test]
fn completions_offer_every_long_flag() {
    let bash = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/reduce.bash"),
    )
    .unwrap();
    for flag in [
        "--algo",
        "--test",
        "--timeout",
        "--jobs",
        "--output",
        "--max-attempts",
        "--stats-json",
        "--unit",
        "--lang",
    ] {
        assert!(bash.contains(flag), "{flag}");
    }
}
