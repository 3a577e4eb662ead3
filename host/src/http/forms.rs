//! `/v0/forms`: form configurations and form instances.

pub mod configurations;
pub mod instances;

use axum::Router;
use axum::routing::{get, post};

use crate::domain::problems::Problems;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/configurations/validate", post(configurations::validate_configuration))
        .route("/configurations", post(configurations::create_configuration).get(configurations::list_configurations))
        .route(
            "/configurations/{configuration_id}",
            get(configurations::get_configuration).put(configurations::update_configuration),
        )
        .route("/", post(instances::create_form).get(instances::list_forms))
        .route("/export", get(crate::http::export::export_forms))
        .route("/{form_id}", get(instances::get_form).patch(instances::update_form))
        .route("/{form_id}/history", get(instances::form_history))
}

/// Parses `states=A,B` against the allowed values; problems at `query.states`.
pub(crate) fn parse_states(raw: Option<&str>, allowed: &[&str], problems: &mut Problems) -> Vec<String> {
    let Some(raw) = raw.filter(|r| !r.trim().is_empty()) else { return Vec::new() };
    let mut states = Vec::new();
    for state in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if allowed.contains(&state) {
            states.push(state.to_owned());
        } else {
            problems.push("query.states", "INVALID_VALUE", format!("{state:?} is not one of {}", allowed.join(", ")));
        }
    }
    states
}
