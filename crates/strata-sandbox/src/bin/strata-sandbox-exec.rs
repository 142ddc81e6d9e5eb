//! `strata-sandbox-exec --policy JSON -- COMMAND`: confines itself to the
//! policy, then execs `sh -c COMMAND`; `--probe` prints (as JSON) what it
//! could confine itself with. Exits 125 without running anything when it
//! cannot confine itself.

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    use std::ffi::CString;
    use std::io::Write;
    use std::os::unix::ffi::OsStringExt;

    use nix::sys::signal::Signal;
    use strata_sandbox::{SandboxError, SandboxPolicy};

    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result<std::convert::Infallible, SandboxError> {
        let (policy, command) = match args.as_slice() {
            [probe] if probe == "--probe" => {
                let support = strata_sandbox::confine::probe();
                let json = serde_json::to_string(&support)?;
                let mut stdout = std::io::stdout().lock();
                return match writeln!(stdout, "{json}").and_then(|()| stdout.flush()) {
                    Ok(()) => std::process::exit(0),
                    Err(error) => Err(SandboxError::Exec(error.to_string())),
                };
            }
            [flag, socket] if flag == strata_sandbox::forward::FORWARD_FLAG => {
                let result = strata_sandbox::forward::run_forwarder(std::path::Path::new(socket));
                std::process::exit(i32::from(result.is_err()));
            }
            [flag, policy, dashes, command]
                if flag == strata_sandbox::POLICY_FLAG && dashes == "--" =>
            {
                (SandboxPolicy::from_json(policy)?, command)
            }
            _ => {
                return Err(SandboxError::Usage(
                    "expected --policy JSON -- COMMAND, or --probe".into(),
                ));
            }
        };
        let forwarder = strata_sandbox::confine::confine(&policy)?;
        // Dies with the process that started it, as `setpriv --pdeathsig`
        // did before the sandbox.
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
            .map_err(|error| SandboxError::Exec(error.to_string()))?;
        let to_c = |text: &str| {
            CString::new(text).map_err(|_| SandboxError::Usage("a NUL byte in the command".into()))
        };
        let argv = [to_c("sh")?, to_c("-c")?, to_c(command)?];
        let env = strata_sandbox::forward::command_env(std::env::vars_os(), forwarder)
            .into_iter()
            .map(|pair| CString::new(pair.into_vec()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| SandboxError::Usage("a NUL byte in the environment".into()))?;
        nix::unistd::execvpe(&argv[0], &argv, &env)
            .map_err(|error| SandboxError::Exec(format!("sh: {error}")))
    };
    match run() {
        Ok(never) => match never {},
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "{} {error}",
                strata_sandbox::LAUNCHER_MESSAGE_PREFIX
            );
            std::process::ExitCode::from(strata_sandbox::LAUNCH_FAILED_EXIT)
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "{} the sandbox needs Linux",
        strata_sandbox::LAUNCHER_MESSAGE_PREFIX
    );
    std::process::ExitCode::from(strata_sandbox::LAUNCH_FAILED_EXIT)
}
