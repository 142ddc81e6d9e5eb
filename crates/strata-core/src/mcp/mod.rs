//! The pure parts of Strata's MCP client: how a server's tools are named for
//! the model, how their input schemas are fitted to each provider, what
//! trust decisions are keyed by, and whether a call runs. No process, no
//! I/O: the server side lives in `strata-mcp`.

pub mod approval;
pub mod catalog;
pub mod fingerprint;
pub mod naming;
pub mod schema;
