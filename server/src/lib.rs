//! Reference MCP Tasks server (protocol 2026-07-28): Streamable HTTP at `/mcp`, durable tasks in
//! SQLite, demo tools for every client path, and fault injection for tests. It shares the wire types of
//! the `mcp-tasks-web` client crate, so there is one definition of the protocol.
#![deny(missing_docs)]

pub mod apps;
pub mod config;
pub mod engine;
pub mod faults;
pub mod http;
pub mod ids;
pub mod listen;
pub mod row;
pub mod rpc;
pub mod store;
pub mod tools;

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::ServerConfig;
use crate::engine::{Engine, EngineSettings};
use crate::faults::FaultDice;
use crate::store::TaskStore;

/// How often live tasks are advanced.
const TICK: Duration = Duration::from_millis(100);

/// A server that is running; `stop` ends it.
pub struct RunningServer {
    /// The bound address (useful with port 0).
    pub addr: SocketAddr,
    /// The token `/admin/*` requires (with `--faults`): `--admin-token`'s, or the one generated at start.
    pub admin_token: Option<String>,
    shutdown: Option<oneshot::Sender<()>>,
    serve: JoinHandle<()>,
    ticker: JoinHandle<()>,
}

impl RunningServer {
    /// The MCP endpoint URL.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The server's base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, gives open requests a moment, then ends everything (listen streams included).
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.ticker.abort();
        if tokio::time::timeout(Duration::from_millis(500), &mut self.serve).await.is_err() {
            self.serve.abort();
        }
    }

    /// Waits until the server ends (for the binary).
    pub async fn wait(self) {
        let _ = self.serve.await;
    }
}

/// Opens the store, binds, and starts serving and ticking.
pub async fn start(mut config: ServerConfig) -> Result<RunningServer, String> {
    if config.faults_enabled && config.admin_token.is_none() {
        config.admin_token = Some(http::admin::generate_token()?);
    }
    let admin_token = config.admin_token.clone();
    let limits = store::StateLimits { ttl_ms: config.mrtr_state_ttl_ms, max_per_owner: store::MAX_STATES_PER_OWNER };
    let store = TaskStore::open(config.db.clone()).map_err(|e| e.to_string())?.with_state_limits(limits);
    let listener =
        tokio::net::TcpListener::bind(config.listen).await.map_err(|e| format!("binding {}: {e}", config.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let settings = EngineSettings {
        poll_interval_ms: config.poll_interval_ms,
        ttl_ms: (config.ttl_ms > 0).then_some(config.ttl_ms),
        light: config.light,
        max_tasks_per_owner: config.max_tasks_per_owner,
    };
    let engine = Arc::new(Engine::new(store, settings, format!("http://{addr}")));
    // Work that was running before a restart resumes on the first tick.
    let ticking = engine.clone();
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(TICK);
        loop {
            interval.tick().await;
            if let Err(e) = ticking.tick() {
                eprintln!("engine: {}", e.message);
            }
        }
    });
    let state = http::AppState {
        engine,
        faults: Arc::new(RwLock::new(config.faults.clone())),
        dice: Arc::new(FaultDice::default()),
        hosts: http::HostPolicy::new(addr.ip(), &config.allowed_hosts),
        config: Arc::new(config),
    };
    let app = http::router(state);
    let (tx, rx) = oneshot::channel::<()>();
    let serve = tokio::spawn(async move {
        let server = axum::serve(listener, app).with_graceful_shutdown(async {
            let _ = rx.await;
        });
        if let Err(e) = server.await {
            eprintln!("server: {e}");
        }
    });
    Ok(RunningServer { addr, admin_token, shutdown: Some(tx), serve, ticker })
}
