//! The pure parts of Strata's MCP client: how a server's tools are named for
//! the model and how their input schemas are fitted to each provider. No
//! process, no I/O: the server side lives in `strata-mcp`.

pub mod naming;
pub mod schema;
