//! `mcp-tasks-server`: the reference MCP Tasks server.
use mcp_tasks_server::config::{argv_warnings, parse_command_line, USAGE};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match parse_command_line(&args, |name| std::env::var(name).ok()) {
        Ok(Some(config)) => config,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("mcp-tasks-server: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    for warning in argv_warnings(&args) {
        eprintln!("{warning}");
    }
    let db = match &config.db {
        mcp_tasks_server::store::DbLocation::Memory => "memory".to_owned(),
        mcp_tasks_server::store::DbLocation::File(p) => p.display().to_string(),
    };
    // A token given with a flag or the environment is not echoed; one generated at start is, for whoever started us.
    let generated_admin_token = config.faults_enabled && config.admin_token.is_none();
    let server = match mcp_tasks_server::start(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("mcp-tasks-server: {e}");
            std::process::exit(1);
        }
    };
    // The first line: harnesses read the URL and, with --faults, the admin token from it.
    let admin = match &server.admin_token {
        Some(token) if generated_admin_token => format!("; admin token: {token}"),
        _ => String::new(),
    };
    println!("mcp-tasks-server listening on {} (tasks in {db}){admin}", server.url());
    println!("demo: {}/", server.base_url());
    tokio::select! {
        () = server_wait(server) => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

async fn server_wait(server: mcp_tasks_server::RunningServer) {
    server.wait().await;
}
