//! A figure that was not measured is NaN in the model and `null` in JSON
//! (serde_json writes every non-finite float so); reading it back, `null`
//! is NaN again, so that a run survives a bundle's round trip (issue #31).

use serde::{Deserialize, Deserializer};

/// An `f64` that may be `null` (NaN).
pub fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct T {
        #[serde(deserialize_with = "super::f64_or_nan")]
        v: f64,
    }

    #[test]
    fn nan_is_null_and_back() {
        let text = serde_json::to_string(&T { v: f64::NAN }).unwrap();
        assert_eq!(text, r#"{"v":null}"#);
        assert!(serde_json::from_str::<T>(&text).unwrap().v.is_nan());
        assert_eq!(serde_json::from_str::<T>(r#"{"v":2.5}"#).unwrap().v, 2.5);
    }
}
