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
    /// Accepted bearer tokens; empty means no authentication.
    pub auth_tokens: Vec<String>,
    /// `pollIntervalMs` suggested on tasks.
    pub poll_interval_ms: u64,
    /// `ttlMs` of new tasks; 0 means unlimited (`null` on the wire).
    pub ttl_ms: u64,
    /// Enables `/admin/*` fault injection.
    pub faults_enabled: bool,
    /// The token `/admin/*` requires (`--admin-token`); with `--faults` and no flag, `start` generates
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
  --auth TOKEN              require `Authorization: Bearer TOKEN` (repeatable; tasks are per token)
  --poll-interval-ms N      pollIntervalMs suggested on tasks (default 500)
  --ttl-ms N                ttlMs of new tasks (default 3600000; 0 = unlimited)
  --faults                  enable the /admin fault-injection endpoints; they require
                            `Authorization: Bearer <admin token>`, a token generated at start and
                            printed on the first stdout line (`admin token: ...`)
  --admin-token TOKEN       use TOKEN as the admin token instead (needs --faults; visible in `ps`)
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

/// Parses the command line (without the program name). `Ok(None)` for `--help`.
pub fn parse_args(args: &[String]) -> Result<Option<ServerConfig>, String> {
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
            "--poll-interval-ms" => config.poll_interval_ms = number(value(&mut it, flag)?, flag)?,
            "--ttl-ms" => config.ttl_ms = number(value(&mut it, flag)?, flag)?,
            "--faults" => config.faults_enabled = true,
            "--admin-token" => {
                let token = value(&mut it, flag)?.trim();
                if token.is_empty() {
                    return Err(format!("{flag}: the token is empty"));
                }
                config.admin_token = Some(token.to_owned());
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
    Ok(Some(config))
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
    }
}
