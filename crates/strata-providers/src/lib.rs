//! Model gateways for Strata: real HTTP providers that stream, report usage
//! and classify their errors, and the offline demo model.

mod secret;

pub use secret::ApiKey;
