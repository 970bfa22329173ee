//! Command-line settings.
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::faults::FaultSettings;
use crate::store::DbLocation;

/// Everything the server is started with.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to bind (port 0 picks a free one).
    pub listen: SocketAddr,
    /// Where tasks are stored.
    pub db: DbLocation,
    /// Static files served at `/`.
    pub www: Option<PathBuf>,
    /// The built npm package served at `/pkg/`.
    pub pkg: Option<PathBuf>,
    /// Accepted bearer tokens (`--auth`, `--auth-file`, `MCP_TASKS_SERVER_AUTH`); empty means no
    /// authentication.
    pub auth_tokens: Vec<String>,
    /// Names answered in `Host` besides loopback ones (`--allowed-host`), on any bind.
    pub allowed_hosts: Vec<String>,
    /// Tasks one owner may have stored at once (until they expire); a `tools/call` past it is refused.
    pub max_tasks_per_owner: u64,
    /// How long an MRTR `requestState` stays valid (ms); an older one is asked again.
    pub mrtr_state_ttl_ms: u64,
    /// `pollIntervalMs` suggested on tasks.
    pub poll_interval_ms: u64,
    /// `ttlMs` of new tasks; 0 means unlimited (`null` on the wire).
    pub ttl_ms: u64,
    /// Enables `/admin/*` fault injection.
    pub faults_enabled: bool,
    /// The token `/admin/*` requires (`--admin-token`, `--admin-token-file`,
    /// `MCP_TASKS_SERVER_ADMIN_TOKEN`); with `--faults` and no flag, `start` generates
    /// one, so the admin endpoints are never open to whoever can reach the port.
    pub admin_token: Option<String>,
    /// Faults active from the start.
    pub faults: FaultSettings,
    /// One log line per request on stderr.
    pub log: bool,
    /// Light mode (`--light`): offers the scale tools (`idle_job`, `idle_seed`, `idle_set`) for
    /// benchmarks that carry thousands of live tasks.
    pub light: bool,
    /// Hostile mode (`--hostile`): also offer the `hostile_*` tools, which misbehave on purpose (a gzip
    /// bomb, an endless SSE event, newline floods, a stalled listen, 10,000 input requests, edge-case
    /// numbers, deep nesting, a cross-origin redirect) so clients can be tested against them.
    pub hostile: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8787)),
            db: DbLocation::File(default_db_path()),
            www: None,
            pkg: None,
            auth_tokens: Vec::new(),
            allowed_hosts: Vec::new(),
            max_tasks_per_owner: DEFAULT_MAX_TASKS_PER_OWNER,
            mrtr_state_ttl_ms: DEFAULT_MRTR_STATE_TTL_MS,
            poll_interval_ms: 500,
            ttl_ms: 3_600_000,
            faults_enabled: false,
            admin_token: None,
            faults: FaultSettings::default(),
            log: true,
            light: false,
            hostile: false,
        }
    }
}

/// The default `--max-tasks-per-owner`: above the 10,000 live tasks the scale bench keeps.
pub const DEFAULT_MAX_TASKS_PER_OWNER: u64 = 50_000;

/// The default `--mrtr-state-ttl-ms`: ten minutes to answer an MRTR round.
pub const DEFAULT_MRTR_STATE_TTL_MS: u64 = 600_000;

/// The environment variable with `/mcp` bearer tokens (whitespace-separated), instead of `--auth`.
pub const AUTH_ENV: &str = "MCP_TASKS_SERVER_AUTH";

/// The environment variable with the admin token (read with `--faults`), instead of `--admin-token`.
pub const ADMIN_TOKEN_ENV: &str = "MCP_TASKS_SERVER_ADMIN_TOKEN";

/// `$XDG_DATA_HOME/mcp-tasks-web/tasks.sqlite`, else `~/.local/share/…`, else the current directory.
pub fn default_db_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("mcp-tasks-web").join("tasks.sqlite")
}

/// The usage text.
pub const USAGE: &str = "mcp-tasks-server: reference MCP Tasks server (protocol 2026-07-28)

  --listen ADDR:PORT        address to bind (default 127.0.0.1:8787; port 0 = any free port)
  --db PATH                 SQLite file for tasks (default: a file under the user's data dir)
  --memory                  keep tasks in memory only
  --www DIR                 serve static files from DIR at /
  --pkg DIR                 serve the built npm package from DIR at /pkg/
  --auth-file PATH          require `Authorization: Bearer TOKEN` for each TOKEN in the file
                            (whitespace-separated; repeatable; tasks are per token); or set
                            MCP_TASKS_SERVER_AUTH to the tokens
  --auth TOKEN              the same for one TOKEN (repeatable; visible to every local user in `ps`)
  --allowed-host NAME       also answer requests whose Host is NAME (repeatable); other names are
                            refused with 403 on every bind (DNS-rebinding protection); loopback
                            names always, and on a non-loopback bind IP addresses, are answered
  --max-tasks-per-owner N   tasks one token (or, without --auth, everyone) may have stored at once,
                            until they expire; a tools/call past it is refused (default 50000)
  --mrtr-state-ttl-ms N     how long a requestState of an input_required answer stays valid
                            (default 600000); each token keeps its newest 1000
  --poll-interval-ms N      pollIntervalMs suggested on tasks (default 500)
  --ttl-ms N                ttlMs of new tasks (default 3600000; 0 = unlimited)
  --faults                  enable the /admin fault-injection endpoints; they require
                            `Authorization: Bearer <admin token>`, a token generated at start and
                            printed on the first stdout line (`admin token: ...`)
  --admin-token-file PATH   use the file's content as the admin token instead (needs --faults);
                            or set MCP_TASKS_SERVER_ADMIN_TOKEN (read with --faults only)
  --admin-token TOKEN       the same with TOKEN (needs --faults; visible to every local user in `ps`)
  --fault-latency-ms N      add N ms to every /mcp request
  --fault-error-rate R      fail a share R (0..1) of /mcp requests with --fault-error-status
  --fault-error-status S    500 or 503 (default 503)
  --fault-rate-limit R      answer a share R of /mcp requests 429 with Retry-After
  --fault-retry-after-s N   Retry-After seconds for 429 (default 2)
  --fault-drop-rate R       drop the connection for a share R of /mcp requests
  --quiet                   no request log
  --light                   light mode: also offer the scale tools idle_job (a task that stays working
                            at no cost: no per-task timer, skipped by the engine tick), idle_seed
                            {count} (creates that many idle_job tasks in one call) and idle_set
                            {status, message} (changes every live idle_job task at once)
  --hostile                 hostile mode: also offer the hostile_* tools, which misbehave on purpose to
                            test clients (gzip bomb, endless SSE event, newline floods, stalled listen,
                            10,000 inputRequests, edge-case numbers, deep nesting, cross-origin redirect)
";

fn value<'a>(args: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a String, String> {
    args.next().ok_or_else(|| format!("{flag} needs a value"))
}

fn number<T: std::str::FromStr>(text: &str, flag: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{flag}: `{text}` is not a valid number"))
}

fn share(text: &str, flag: &str) -> Result<f64, String> {
    let r: f64 = number(text, flag)?;
    if (0.0..=1.0).contains(&r) {
        Ok(r)
    } else {
        Err(format!("{flag}: a share between 0 and 1, got {text}"))
    }
}

/// The whitespace-separated tokens of a file, or an error naming the flag and the file.
fn tokens_in_file(path: &str, flag: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{flag}: reading {path}: {e}"))?;
    let tokens: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    if tokens.is_empty() {
        return Err(format!("{flag}: {path} holds no token"));
    }
    Ok(tokens)
}

fn admin_token(config: &mut ServerConfig, token: &str, flag: &str) -> Result<(), String> {
    let token = token.trim();
    if token.is_empty() {
        return Err(format!("{flag}: the token is empty"));
    }
    if config.admin_token.is_some() {
        return Err(format!("{flag}: the admin token is given twice (--admin-token, --admin-token-file)"));
    }
    config.admin_token = Some(token.to_owned());
    Ok(())
}

/// Parses the command line (without the program name), without reading the environment. `Ok(None)`
/// for `--help`.
pub fn parse_args(args: &[String]) -> Result<Option<ServerConfig>, String> {
    parse_command_line(args, |_| None)
}

/// Parses the command line as the binary does: `env` gives the environment variables
/// ([`AUTH_ENV`], whose tokens join those of the flags; [`ADMIN_TOKEN_ENV`], read with `--faults` when
/// no flag gives the admin token). `Ok(None)` for `--help`.
pub fn parse_command_line(
    args: &[String],
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<ServerConfig>, String> {
    let mut config = ServerConfig::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--listen" => {
                let v = value(&mut it, flag)?;
                config.listen = v.parse().map_err(|_| format!("--listen: `{v}` is not ADDR:PORT"))?;
            }
            "--db" => config.db = DbLocation::File(PathBuf::from(value(&mut it, flag)?)),
            "--memory" => config.db = DbLocation::Memory,
            "--www" => config.www = Some(PathBuf::from(value(&mut it, flag)?)),
            "--pkg" => config.pkg = Some(PathBuf::from(value(&mut it, flag)?)),
            "--auth" => config.auth_tokens.push(value(&mut it, flag)?.clone()),
            "--auth-file" => config.auth_tokens.extend(tokens_in_file(value(&mut it, flag)?, flag)?),
            "--allowed-host" => {
                let name = value(&mut it, flag)?.trim();
                if name.is_empty() || name.contains(['/', ' ', '@']) {
                    return Err(format!("{flag}: `{name}` is not a host name"));
                }
                config.allowed_hosts.push(name.to_owned());
            }
            "--max-tasks-per-owner" => {
                config.max_tasks_per_owner = number(value(&mut it, flag)?, flag)?;
                if config.max_tasks_per_owner == 0 {
                    return Err(format!("{flag}: at least 1"));
                }
            }
            "--mrtr-state-ttl-ms" => {
                config.mrtr_state_ttl_ms = number(value(&mut it, flag)?, flag)?;
                if config.mrtr_state_ttl_ms == 0 {
                    return Err(format!("{flag}: at least 1"));
                }
            }
            "--poll-interval-ms" => config.poll_interval_ms = number(value(&mut it, flag)?, flag)?,
            "--ttl-ms" => config.ttl_ms = number(value(&mut it, flag)?, flag)?,
            "--faults" => config.faults_enabled = true,
            "--admin-token" => admin_token(&mut config, value(&mut it, flag)?, flag)?,
            "--admin-token-file" => {
                let path = value(&mut it, flag)?;
                let text = std::fs::read_to_string(path).map_err(|e| format!("{flag}: reading {path}: {e}"))?;
                admin_token(&mut config, &text, flag)?;
            }
            "--fault-latency-ms" => config.faults.latency_ms = number(value(&mut it, flag)?, flag)?,
            "--fault-error-rate" => config.faults.error_rate = share(value(&mut it, flag)?, flag)?,
            "--fault-error-status" => {
                let s: u16 = number(value(&mut it, flag)?, flag)?;
                if s != 500 && s != 503 {
                    return Err(format!("{flag}: 500 or 503, got {s}"));
                }
                config.faults.error_status = s;
            }
            "--fault-rate-limit" => config.faults.rate_limit_rate = share(value(&mut it, flag)?, flag)?,
            "--fault-retry-after-s" => config.faults.retry_after_s = number(value(&mut it, flag)?, flag)?,
            "--fault-drop-rate" => config.faults.drop_rate = share(value(&mut it, flag)?, flag)?,
            "--quiet" => config.log = false,
            "--light" => config.light = true,
            "--hostile" => config.hostile = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if config.admin_token.is_some() && !config.faults_enabled {
        return Err("--admin-token: there are no admin endpoints without --faults".into());
    }
    if let Some(tokens) = env(AUTH_ENV) {
        let before = config.auth_tokens.len();
        config.auth_tokens.extend(tokens.split_whitespace().map(str::to_owned));
        if config.auth_tokens.len() == before {
            return Err(format!("{AUTH_ENV} is set but holds no token"));
        }
    }
    if config.faults_enabled && config.admin_token.is_none() {
        if let Some(token) = env(ADMIN_TOKEN_ENV) {
            admin_token(&mut config, &token, ADMIN_TOKEN_ENV)?;
        }
    }
    Ok(Some(config))
}

/// Warnings for secrets given on the command line, which every local user can read (`ps`,
/// `/proc/PID/cmdline`): one line per flag used, naming the way that is not visible.
pub fn argv_warnings(args: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (flag, instead) in [
        ("--auth", format!("--auth-file PATH or {AUTH_ENV}")),
        ("--admin-token", format!("--admin-token-file PATH or {ADMIN_TOKEN_ENV}")),
    ] {
        if args.iter().any(|a| a == flag) {
            warnings.push(format!(
                "mcp-tasks-server: warning: {flag} puts a token in the process arguments, visible to every local user \
                 (ps); use {instead} instead"
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_set_the_config() {
        let c = parse_args(&args(&[
            "--listen",
            "127.0.0.1:0",
            "--memory",
            "--auth",
            "a",
            "--auth",
            "b",
            "--poll-interval-ms",
            "250",
            "--ttl-ms",
            "0",
            "--faults",
            "--admin-token",
            "adm1n",
            "--fault-error-rate",
            "0.5",
            "--fault-error-status",
            "500",
            "--fault-drop-rate",
            "1",
            "--light",
            "--hostile",
        ]))
        .expect("valid")
        .expect("not help");
        assert_eq!(c.listen.port(), 0);
        assert_eq!(c.db, DbLocation::Memory);
        assert_eq!(c.auth_tokens, ["a", "b"]);
        assert_eq!((c.poll_interval_ms, c.ttl_ms), (250, 0));
        assert!(c.faults_enabled);
        assert_eq!(c.admin_token.as_deref(), Some("adm1n"));
        assert_eq!(ServerConfig::default().admin_token, None);
        assert!(c.light);
        assert!(!ServerConfig::default().light);
        assert!(c.hostile);
        assert!(!ServerConfig::default().hostile);
        assert_eq!((c.faults.error_rate, c.faults.error_status, c.faults.drop_rate), (0.5, 500, 1.0));
    }

    #[test]
    fn bad_flags_are_explained() {
        assert!(parse_args(&args(&["--listen", "nowhere"])).is_err());
        assert!(parse_args(&args(&["--fault-error-rate", "2"])).is_err());
        assert!(parse_args(&args(&["--fault-error-status", "418"])).is_err());
        assert!(parse_args(&args(&["--poll-interval-ms"])).is_err());
        assert!(parse_args(&args(&["--bogus"])).is_err());
        assert!(parse_args(&args(&["--faults", "--admin-token", " "])).is_err());
        assert!(parse_args(&args(&["--admin-token", "t"])).is_err(), "no admin endpoints without --faults");
        assert!(matches!(parse_args(&args(&["--help"])), Ok(None)));
        assert!(parse_args(&args(&["--max-tasks-per-owner", "0"])).is_err());
        assert!(parse_args(&args(&["--mrtr-state-ttl-ms", "0"])).is_err());
        assert!(parse_args(&args(&["--allowed-host", "http://x"])).is_err());
        assert!(parse_args(&args(&["--allowed-host", " "])).is_err());
    }

    #[test]
    fn limits_have_flags_and_defaults() {
        let c = parse_args(&args(&[
            "--allowed-host",
            "tasks.example",
            "--allowed-host",
            "other.example",
            "--max-tasks-per-owner",
            "3",
            "--mrtr-state-ttl-ms",
            "250",
        ]))
        .expect("valid")
        .expect("not help");
        assert_eq!(c.allowed_hosts, ["tasks.example", "other.example"]);
        assert_eq!((c.max_tasks_per_owner, c.mrtr_state_ttl_ms), (3, 250));
        let d = ServerConfig::default();
        assert!(d.allowed_hosts.is_empty());
        assert_eq!((d.max_tasks_per_owner, d.mrtr_state_ttl_ms), (50_000, 600_000));
    }

    #[test]
    fn tokens_from_files_and_the_environment() {
        let dir = std::env::temp_dir().join(format!("mcp-tasks-config-{}", crate::ids::random_id("")));
        std::fs::create_dir_all(&dir).expect("dir");
        let (auth, admin, empty) = (dir.join("auth"), dir.join("admin"), dir.join("empty"));
        std::fs::write(&auth, "one\ntwo three\n").expect("written");
        std::fs::write(&admin, "  adm1n\n").expect("written");
        std::fs::write(&empty, "\n").expect("written");
        let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
        let env = |name: &str| match name {
            AUTH_ENV => Some(" four\tfive ".to_owned()),
            ADMIN_TOKEN_ENV => Some("from-env".to_owned()),
            _ => None,
        };
        let c = parse_command_line(&args(&["--auth", "zero", "--auth-file", &path(&auth)]), env)
            .expect("valid")
            .expect("not help");
        assert_eq!(c.auth_tokens, ["zero", "one", "two", "three", "four", "five"]);
        assert_eq!(c.admin_token, None, "the environment's admin token is read with --faults only");
        let c = parse_command_line(&args(&["--faults"]), env).expect("valid").expect("not help");
        assert_eq!(c.admin_token.as_deref(), Some("from-env"));
        let c = parse_command_line(&args(&["--faults", "--admin-token-file", &path(&admin)]), env)
            .expect("valid")
            .expect("not help");
        assert_eq!(c.admin_token.as_deref(), Some("adm1n"), "a flag wins over the environment");
        assert!(parse_args(&args(&["--auth-file", &path(&empty)])).is_err_and(|e| e.contains("no token")));
        assert!(parse_args(&args(&["--auth-file", &path(&dir.join("absent"))])).is_err());
        assert!(parse_args(&args(&["--faults", "--admin-token-file", &path(&empty)])).is_err());
        assert!(parse_args(&args(&["--faults", "--admin-token", "a", "--admin-token-file", &path(&admin)])).is_err());
        let blank = |name: &str| (name == AUTH_ENV).then(|| "  ".to_owned());
        assert!(parse_command_line(&args(&[]), blank).is_err(), "a set but empty variable is no open server");
        assert_eq!(parse_args(&args(&[])).expect("valid").expect("not help").auth_tokens, Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn secrets_in_argv_are_warned_about() {
        assert!(argv_warnings(&args(&["--auth-file", "f", "--faults"])).is_empty());
        let warnings = argv_warnings(&args(&["--auth", "t", "--faults", "--admin-token", "a"]));
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].contains("--auth ") && warnings[0].contains(AUTH_ENV), "{}", warnings[0]);
        assert!(warnings[1].contains("--admin-token ") && warnings[1].contains("--admin-token-file"));
    }
}
