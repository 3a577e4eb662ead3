//! `/v0/workflows`: workflow configurations, permissions, instances, views and items.

pub mod configurations;
pub mod items;

use axum::Router;
use axum::routing::{get, post};

use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/configurations/validate", post(configurations::validate_workflow))
        .route("/configurations", post(configurations::create_workflow).get(configurations::list_workflows))
        .route(
            "/configurations/{configuration_id}",
            get(configurations::get_workflow).put(configurations::update_workflow),
        )
        .route(
            "/configurations/{configuration_id}/permissions",
            get(configurations::get_permissions).put(configurations::replace_permissions),
        )
        .route("/instances", post(items::start_workflow))
        .route("/views/{view_id}/items", get(items::list_view_items))
        .route("/items/export", get(crate::http::export::export_items))
        .route("/items/{item_id}", get(items::get_item).patch(items::update_item))
        .route("/items/{item_id}/transitions", post(items::transition_item))
        .route("/items/{item_id}/history", get(items::item_history))
}
