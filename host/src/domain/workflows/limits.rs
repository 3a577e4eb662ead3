//! Size limits of a workflow configuration, checked before any other rule. The document as a
//! whole is also held to the configuration bounds every document has
//! ([`crate::domain::document::limits::MAX_CONFIG_NODES`] and friends).

/// Most workbaskets in a network.
pub const MAX_WORKBASKETS: usize = 500;
/// Most transitions in a network, over all its workbaskets.
pub const MAX_TRANSITIONS: usize = 5_000;
/// Most views.
pub const MAX_VIEWS: usize = 200;
/// Most entries of `integrations.forms.allowedConfigurationIds`.
pub const MAX_ALLOWED_FORMS: usize = 1_000;
/// Most form configurations one view names.
pub const MAX_FORMS_PER_VIEW: usize = 100;
/// Most `listFields` or `detailFields` entries of one view form.
pub const MAX_VIEW_FIELDS: usize = 2_000;
/// Highest `permissionSlot`.
pub const MAX_PERMISSION_SLOT: u32 = 1_000;
