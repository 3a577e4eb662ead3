//! The glue between the traits and the generated `Guest` traits, and the `export_*!` macros that place it
//! in a module's crate.

use std::marker::PhantomData;

use crate::analysis::AnalysisStep;
use crate::marketplace::MarketplaceRule;
use crate::wit::analysis::exports::trellis::module::analysis_hooks;
use crate::wit::imports::trellis::module::types::{Context as WitContext, Manifest as WitManifest};
use crate::wit::info::exports::trellis::module::module_info;
use crate::wit::marketplace::exports::trellis::module::marketplace_hooks;
use crate::wit::space::exports::trellis::module::space_hooks;
use crate::{ModuleKind, SpaceModule};

/// Exports `M` as a space module.
pub struct SpaceExport<M>(PhantomData<M>);
/// Exports `M` as a marketplace rule.
pub struct MarketplaceExport<M>(PhantomData<M>);
/// Exports `M` as an analysis step.
pub struct AnalysisExport<M>(PhantomData<M>);

impl<M: SpaceModule> module_info::Guest for SpaceExport<M> {
    fn manifest() -> WitManifest {
        M::manifest().into_wit(ModuleKind::Space)
    }
}

impl<M: SpaceModule> space_hooks::Guest for SpaceExport<M> {
    fn on_event(ctx: WitContext, event: space_hooks::Event) -> Result<(), String> {
        M::on_event(&ctx.into(), &event.into()).map_err(|error| error.to_string())
    }

    fn handle_request(ctx: WitContext, request: space_hooks::Request) -> Result<space_hooks::Response, String> {
        let response = M::handle_request(&ctx.into(), &request.into()).map_err(|error| error.to_string())?;
        let (status, body) = response.into_parts();
        Ok(space_hooks::Response { status, body })
    }
}

impl<M: MarketplaceRule> module_info::Guest for MarketplaceExport<M> {
    fn manifest() -> WitManifest {
        M::manifest().into_wit(ModuleKind::MarketplaceRule)
    }
}

impl<M: MarketplaceRule> marketplace_hooks::Guest for MarketplaceExport<M> {
    fn trending_scores(ctx: WitContext, listings: Vec<marketplace_hooks::ListingStats>) -> Result<Vec<f64>, String> {
        let listings: Vec<_> = listings.into_iter().map(Into::into).collect();
        M::trending_scores(&ctx.into(), &listings).map_err(|error| error.to_string())
    }

    fn registration_decision(
        ctx: WitContext,
        registration: marketplace_hooks::Registration,
    ) -> Result<marketplace_hooks::Decision, String> {
        M::registration_decision(&ctx.into(), &registration.into()).map(Into::into).map_err(|error| error.to_string())
    }
}

impl<M: AnalysisStep> module_info::Guest for AnalysisExport<M> {
    fn manifest() -> WitManifest {
        M::manifest().into_wit(ModuleKind::AnalysisStep)
    }
}

impl<M: AnalysisStep> analysis_hooks::Guest for AnalysisExport<M> {
    fn analyze(ctx: WitContext, asset: analysis_hooks::AssetInfo) -> Result<analysis_hooks::AnalysisResult, String> {
        M::analyze(&ctx.into(), &asset.into()).map(Into::into).map_err(|error| error.to_string())
    }
}

/// Exports a [`SpaceModule`] as this crate's component: `trellis_plugin_sdk::export_space_module!(MyModule);`
/// once, at the crate root of a `cdylib` built for `wasm32-wasip2`.
///
/// The component then exports `trellis:module/module-info@0.3.0` and `trellis:module/space-hooks@0.3.0`, as
/// the `space-module` world says. On other targets the macro only checks the trait bound, so native
/// `cargo test` links no export glue.
#[macro_export]
macro_rules! export_space_module {
    ($module:ty) => {
        const _: fn() = || {
            fn assert_space_module<M: $crate::SpaceModule>() {}
            assert_space_module::<$module>();
        };
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            type TrellisExport = $crate::__private::SpaceExport<$module>;
    $crate::wit::info::export!(TrellisExport with_types_in $crate::wit::info);
    $crate::wit::space::export!(TrellisExport with_types_in $crate::wit::space);
        };
    };
}

/// Exports a [`MarketplaceRule`] as this crate's component (`module-info` and `marketplace-hooks`):
/// `trellis_plugin_sdk::export_marketplace_rule!(MyRule);` once, at the crate root.
#[macro_export]
macro_rules! export_marketplace_rule {
    ($module:ty) => {
        const _: fn() = || {
            fn assert_marketplace_rule<M: $crate::marketplace::MarketplaceRule>() {}
            assert_marketplace_rule::<$module>();
        };
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            type TrellisExport = $crate::__private::MarketplaceExport<$module>;
    $crate::wit::info::export!(TrellisExport with_types_in $crate::wit::info);
    $crate::wit::marketplace::export!(TrellisExport with_types_in $crate::wit::marketplace);
        };
    };
}

/// Exports an [`AnalysisStep`] as this crate's component: `trellis_plugin_sdk::export_analysis_step!(MyStep);`
/// once, at the crate root. The component targets WIT 0.3.0's `analysis-step` world: it exports
/// `trellis:module/module-info@0.3.0` and `trellis:module/analysis-hooks@0.3.0`, and imports the 0.3.0
/// interfaces its code calls.
#[macro_export]
macro_rules! export_analysis_step {
    ($module:ty) => {
        const _: fn() = || {
            fn assert_analysis_step<M: $crate::analysis::AnalysisStep>() {}
            assert_analysis_step::<$module>();
        };
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            type TrellisExport = $crate::__private::AnalysisExport<$module>;
    $crate::wit::info::export!(TrellisExport with_types_in $crate::wit::info);
    $crate::wit::analysis::export!(TrellisExport with_types_in $crate::wit::analysis);
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalysisStep;
    use crate::wit::imports::trellis::module::types::{ModuleKind as WitKind, Permission as WitPermission};
    use crate::{Context, Event, Manifest, Permission, Request, Response};

    struct Echo;

    impl SpaceModule for Echo {
        fn manifest() -> Manifest {
            Manifest::new("echo", "Echo", "1.0.0").permission(Permission::OutboundHttp(vec!["a.example".into()]))
        }

        fn on_event(ctx: &Context, event: &Event) -> crate::Result<()> {
            Err(crate::Error::new(format!("{} {}", ctx.space_id(), event.item_id())))
        }

        fn handle_request(ctx: &Context, request: &Request) -> crate::Result<Response> {
            Ok(Response::ok(&serde_json::json!({
                "space": ctx.space_id(), "path": request.path(), "query": request.query(),
                "caller": request.caller_handle(), "owner": request.caller_role() == crate::CallerRole::Owner,
            })))
        }
    }

    fn wit_ctx() -> WitContext {
        WitContext { space_id: "s1".into(), config: "{}".into() }
    }

    #[test]
    fn manifest_export_carries_the_kind_of_the_trait() {
        let manifest = <SpaceExport<Echo> as module_info::Guest>::manifest();
        assert_eq!(manifest.id, "echo");
        assert!(matches!(manifest.kind, WitKind::Space));
        assert!(matches!(&manifest.permissions[..], [WitPermission::OutboundHttp(hosts)] if hosts == &["a.example"]));
    }

    #[test]
    fn request_export_converts_both_ways() {
        // Arrange
        let request = space_hooks::Request {
            method: space_hooks::Method::Get,
            path: "/x".into(),
            query: "a=1".into(),
            body: Vec::new(),
            caller_user_id: "u1".into(),
            caller_handle: "ada".into(),
            caller_role: space_hooks::CallerRole::Owner,
        };

        // Act
        let response = <SpaceExport<Echo> as space_hooks::Guest>::handle_request(wit_ctx(), request).unwrap();

        // Assert
        assert_eq!(response.status, 200);
        let body: serde_json::Value = serde_json::from_str(&response.body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"caller": "ada", "owner": true, "path": "/x", "query": "a=1", "space": "s1"})
        );
    }

    struct Kites;

    impl AnalysisStep for Kites {
        fn manifest() -> Manifest {
            Manifest::new("kites", "Kites", "1.0.0").permission(Permission::Vision).permission(Permission::Logging)
        }

        fn analyze(
            ctx: &Context,
            asset: &crate::analysis::AssetInfo,
        ) -> crate::Result<crate::analysis::AnalysisResult> {
            use crate::analysis::Finding;
            Ok(crate::analysis::AnalysisResult {
                tags: vec![Finding::from_model("kite", "m 1")],
                sentences: vec![Finding::new(format!("{} in {}.", asset.filename, ctx.space_id()))],
                transcript: None,
                text: Some(Finding::from_model("KITES\nFOR SALE", "ocr 1")),
            })
        }
    }

    #[test]
    fn analysis_export_speaks_wit_0_3_with_findings_and_text() {
        // Arrange
        let ctx = wit_ctx();
        let asset = analysis_hooks::AssetInfo {
            asset_id: "a1".into(),
            filename: "kite.jpg".into(),
            content_type: "image/jpeg".into(),
            bytes: 3,
        };

        // Act
        let manifest = <AnalysisExport<Kites> as module_info::Guest>::manifest();
        let result = <AnalysisExport<Kites> as analysis_hooks::Guest>::analyze(ctx, asset).unwrap();

        // Assert
        assert!(matches!(manifest.kind, WitKind::AnalysisStep));
        assert!(matches!(manifest.permissions[..], [WitPermission::Vision, WitPermission::Logging]));
        assert_eq!(result.tags[0].model.as_deref(), Some("m 1"));
        assert_eq!(result.sentences[0].text, "kite.jpg in s1.");
        assert_eq!(result.text.map(|t| (t.text, t.model)), Some(("KITES\nFOR SALE".into(), Some("ocr 1".into()))));
    }

    #[test]
    fn event_export_turns_an_error_into_its_message() {
        let event = space_hooks::Event { kind: space_hooks::EventKind::AssetStateChanged, item_id: "a1".into() };
        let error = <SpaceExport<Echo> as space_hooks::Guest>::on_event(wit_ctx(), event).unwrap_err();
        assert_eq!(error, "s1 a1");
    }
}
