//! The config file's `[network]` table: how long Strata waits for a
//! provider and how often it tries again. Every key is optional; absent
//! ones keep the defaults of [`HttpOptions`] (and the turn deadline
//! [`DEFAULT_TURN_DEADLINE`]).
//!
//! ```toml
//! [network]
//! idle_timeout_ms = 300000        # no event for this long fails an attempt
//! response_deadline_ms = 1800000  # one model response, retries included
//! turn_deadline_ms = 7200000      # a whole agent turn, rounds and tools (0: the default)
//! connect_timeout_ms = 15000
//! max_attempts = 5                # the first attempt included
//! retry_base_delay_ms = 500
//! retry_max_delay_ms = 60000
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

use strata_core::agent::DEFAULT_TURN_DEADLINE;

use crate::client::HttpOptions;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// An attempt fails when no event arrives for this long (keep-alive
    /// comments do not count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_ms: Option<u64>,
    /// The longest one model response may take, retries included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_deadline_ms: Option<u64>,
    /// The longest a whole agent turn may take, model rounds and tool runs
    /// together; 0 or absent is [`DEFAULT_TURN_DEADLINE`] (two hours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_deadline_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_base_delay_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_max_delay_ms: Option<u64>,
}

impl NetworkConfig {
    pub fn is_default(&self) -> bool {
        self == &Self::default()
    }

    /// The transport settings: these keys over the defaults.
    pub fn options(&self) -> HttpOptions {
        let mut options = HttpOptions::default();
        let ms = Duration::from_millis;
        if let Some(value) = self.idle_timeout_ms {
            options.idle_timeout = ms(value);
        }
        if let Some(value) = self.response_deadline_ms {
            options.response_deadline = ms(value);
        }
        if let Some(value) = self.connect_timeout_ms {
            options.connect_timeout = ms(value);
        }
        if let Some(value) = self.max_attempts {
            options.retry.max_attempts = value;
        }
        if let Some(value) = self.retry_base_delay_ms {
            options.retry.base_delay = ms(value);
        }
        if let Some(value) = self.retry_max_delay_ms {
            options.retry.max_delay = ms(value);
        }
        options
    }

    /// The overall turn deadline, for the agent's config.
    pub fn turn_deadline(&self) -> Duration {
        match self.turn_deadline_ms {
            None | Some(0) => DEFAULT_TURN_DEADLINE,
            Some(ms) => Duration::from_millis(ms),
        }
    }

    /// What is wrong with these keys, for the config's problem list.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let positive = [
            ("idle_timeout_ms", self.idle_timeout_ms),
            ("response_deadline_ms", self.response_deadline_ms),
            ("connect_timeout_ms", self.connect_timeout_ms),
            ("max_attempts", self.max_attempts.map(u64::from)),
        ];
        for (key, value) in positive {
            if value == Some(0) {
                problems.push(format!("network.{key} must be at least 1"));
            }
        }
        if let (Some(base), Some(max)) = (self.retry_base_delay_ms, self.retry_max_delay_ms)
            && base > max
        {
            problems.push(
                "network.retry_base_delay_ms must not exceed network.retry_max_delay_ms".into(),
            );
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_keep_the_defaults_and_given_ones_apply() {
        assert_eq!(NetworkConfig::default().options(), HttpOptions::default());
        let config: NetworkConfig = toml::from_str(
            "idle_timeout_ms = 1500\nresponse_deadline_ms = 8000\nmax_attempts = 2\nretry_base_delay_ms = 10\nretry_max_delay_ms = 50\n",
        )
        .unwrap();
        let options = config.options();
        assert_eq!(options.idle_timeout, Duration::from_millis(1500));
        assert_eq!(options.response_deadline, Duration::from_secs(8));
        assert_eq!(options.retry.max_attempts, 2);
        assert_eq!(options.retry.max_delay, Duration::from_millis(50));
        assert!(config.problems().is_empty());
    }

    #[test]
    fn the_turn_deadline_is_two_hours_unless_a_positive_one_is_given() {
        assert_eq!(
            NetworkConfig::default().turn_deadline(),
            DEFAULT_TURN_DEADLINE
        );
        let zero: NetworkConfig = toml::from_str("turn_deadline_ms = 0").unwrap();
        assert_eq!(zero.turn_deadline(), DEFAULT_TURN_DEADLINE);
        assert!(zero.problems().is_empty());
        let given: NetworkConfig = toml::from_str("turn_deadline_ms = 250").unwrap();
        assert_eq!(given.turn_deadline(), Duration::from_millis(250));
    }

    #[test]
    fn zero_waits_and_inverted_backoff_are_problems() {
        let config = NetworkConfig {
            idle_timeout_ms: Some(0),
            max_attempts: Some(0),
            retry_base_delay_ms: Some(100),
            retry_max_delay_ms: Some(10),
            ..NetworkConfig::default()
        };
        assert_eq!(config.problems().len(), 3, "{:?}", config.problems());
        assert!(toml::from_str::<NetworkConfig>("idle_timeout = 3").is_err());
    }
}
