//! The bounds of the request bodies (lengths, counts, and the patterns of free text and of the
//! shapes that count characters), written into the document from the constants and rules the
//! domain checks, because utoipa's attributes take only literals. A request struct states no bound
//! of its own: a test walks the finished document and finds every bound of a request body here.

use serde_json::{Value, json};

use crate::domain::text::Rule;
use crate::domain::{account, assets, channels, comments, file_names, marketplace, messages, secret, spaces};

/// The least length or count of a text, list or file that must not be empty.
const NOT_EMPTY: usize = 1;

/// One bound: where (a schema and a property of it) and which keyword, with its value.
#[derive(Debug)]
pub(super) struct Bound {
    pub schema: &'static str,
    pub property: &'static str,
    pub keyword: &'static str,
    pub value: Value,
}

#[derive(Default)]
struct Table(Vec<Bound>);

impl Table {
    fn add(&mut self, schemas: &[&'static str], property: &'static str, keyword: &'static str, value: Value) {
        for schema in schemas {
            self.0.push(Bound { schema, property, keyword, value: value.clone() });
        }
    }

    /// A free text: its length in characters and its characters as `rule` checks them.
    fn text(&mut self, schemas: &[&'static str], property: &'static str, rule: &Rule) {
        if rule.min() > 0 {
            self.add(schemas, property, "minLength", json!(rule.min()));
        }
        self.add(schemas, property, "maxLength", json!(rule.max));
        self.add(schemas, property, "pattern", json!(rule.pattern()));
    }
}

/// Every bound of every request body.
pub(super) fn table() -> Vec<Bound> {
    let mut table = Table::default();
    let token = |table: &mut Table, schemas: &[&'static str], property| {
        table.add(schemas, property, "minLength", json!(NOT_EMPTY));
        table.add(schemas, property, "maxLength", json!(secret::MAX_TOKEN_CHARS));
    };
    // Accounts.
    table.add(&["StartSignup", "StartReset"], "email", "maxLength", json!(account::MAX_EMAIL_CHARS));
    table.add(&["StartSignup"], "handle", "pattern", json!(account::HANDLE_PATTERN));
    table.text(&["StartSignup", "UpdateProfile"], "fullName", &account::NAME);
    table.text(&["StartSignup", "UpdateProfile"], "displayName", &account::NAME);
    token(&mut table, &["VerifySignupPin", "CompleteSignup"], "signupToken");
    token(&mut table, &["VerifyResetPin", "ResendResetPin", "CompleteReset"], "resetToken");
    table.add(
        &["VerifySignupPin", "VerifyResetPin"],
        "pin",
        "pattern",
        json!(format!("^[0-9]{{{}}}$", account::PIN_DIGITS)),
    );
    table.add(&["CompleteSignup", "CompleteReset"], "password", "minLength", json!(account::MIN_PASSWORD_CHARS));
    table.add(
        &["CompleteSignup", "CompleteReset", "Login"],
        "password",
        "maxLength",
        json!(account::MAX_PASSWORD_CHARS),
    );
    // A login is an e-mail address or a handle, and no handle is longer than an address; any
    // password may be tried, the sign-up rule applies to new ones only.
    table.add(&["Login"], "login", "minLength", json!(NOT_EMPTY));
    table.add(&["Login"], "login", "maxLength", json!(account::MAX_EMAIL_CHARS));
    table.add(&["Login"], "password", "minLength", json!(NOT_EMPTY));
    // Spaces and channels.
    table.add(&["NewSpace", "GeneralSettings"], "name", "pattern", json!(spaces::NAME_PATTERN));
    table.text(&["NewSpace", "GeneralSettings"], "displayName", &spaces::DISPLAY_NAME);
    table.text(&["NewSpace", "GeneralSettings"], "summary", &spaces::SUMMARY);
    table.text(&["NewChannel"], "name", &channels::NAME);
    table.text(&["NewChannel"], "description", &channels::DESCRIPTION);
    table.add(&["ChannelSpaceSet"], "spaceIds", "maxItems", json!(channels::MAX_SPACES));
    table.add(&["InviteRequest"], "users", "minItems", json!(NOT_EMPTY));
    table.add(&["InviteRequest"], "users", "maxItems", json!(channels::MAX_INVITES_PER_REQUEST));
    table.add(&["InviteResponse"], "inviteId", "minLength", json!(NOT_EMPTY));
    // Comments and messages.
    table.text(&["NewComment"], "body", &comments::BODY);
    table.add(&["NewMessage"], "to", "pattern", json!(account::HANDLE_PATTERN));
    table.text(&["NewMessage"], "subject", &messages::SUBJECT);
    table.text(&["NewMessage"], "body", &messages::BODY);
    // Assets and uploads.
    table.text(&["NewAsset"], "title", &assets::TITLE);
    table.add(&["NewAsset"], "filename", "maxLength", json!(assets::MAX_FILENAME_CHARS));
    table.add(&["NewAsset"], "filename", "pattern", json!(file_names::pattern()));
    table.add(&["NewAsset"], "contentType", "maxLength", json!(assets::MAX_CONTENT_TYPE_CHARS));
    let part = format!("[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{{0,{}}}", assets::MAX_CONTENT_TYPE_PART_CHARS - 1);
    table.add(&["NewAsset"], "contentType", "pattern", json!(format!(r"^\s*{part}/{part}\s*$")));
    table.add(&["AssetUpload", "AvatarUpload"], "file", "minLength", json!(NOT_EMPTY));
    // The marketplace.
    table.text(&["MarketplaceSettingsChange"], "title", &marketplace::TITLE);
    table.text(&["MarketplaceSettingsChange"], "summary", &marketplace::SUMMARY);
    table.add(&["MarketplaceSettingsChange"], "categories", "maxItems", json!(marketplace::MAX_CATEGORIES));
    table.text(&["ListingDecision"], "reason", &marketplace::REASON);
    table.text(&["NewRegistration"], "note", &marketplace::NOTE);
    table.0
}

/// Writes every bound of [`table`] into the document's schemas. Runs before `strict`, which gives
/// a string without a pattern the NUL-free one.
pub(super) fn complete(document: &mut Value) {
    for bound in table() {
        let pointer = format!("/components/schemas/{}/properties/{}", bound.schema, bound.property);
        if let Some(property) = document.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            property.insert(bound.keyword.into(), bound.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::http::openapi::strict;

    /// The keywords that bound a value. A `pattern` counts as a bound when the table has it or when
    /// it counts characters (`{m,n}`), which is how a length limit would hide in it.
    const KEYWORDS: [&str; 11] = [
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minProperties",
        "maxProperties",
        "pattern",
    ];

    /// Every bound keyword in `schema` and what it holds inline, by property path.
    fn bounds(schema: &Value, path: &str, found: &mut Vec<(String, &'static str, Value)>) {
        let Some(map) = schema.as_object() else { return };
        for keyword in KEYWORDS {
            if let Some(value) = map.get(keyword) {
                found.push((path.to_owned(), keyword, value.clone()));
            }
        }
        let join = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}/{key}") };
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                bounds(property, &join(name), found);
            }
        }
        for key in ["items", "additionalProperties", "propertyNames", "not"] {
            if let Some(child) = map.get(key) {
                bounds(child, &join(key), found);
            }
        }
        for key in ["allOf", "anyOf", "oneOf", "prefixItems"] {
            for (index, child) in map.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
                bounds(child, &join(&format!("{key}/{index}")), found);
            }
        }
    }

    #[test]
    fn every_bound_of_a_request_body_is_a_domain_constant_from_the_table() {
        let document = &*super::super::DOCUMENT;
        let schemas = document.pointer("/components/schemas").and_then(Value::as_object).unwrap();
        let mut names = BTreeSet::new();
        for operation in
            document["paths"].as_object().unwrap().values().flat_map(|item| item.as_object().unwrap().values())
        {
            if let Some(body) = operation.get("requestBody") {
                strict::referenced(body, &mut names);
            }
        }
        // And what those schemas hold by reference.
        let mut pending: Vec<String> = names.iter().cloned().collect();
        while let Some(name) = pending.pop() {
            let mut inner = BTreeSet::new();
            if let Some(schema) = schemas.get(&name).filter(|_| !super::super::is_configuration_document(&name)) {
                strict::referenced(schema, &mut inner);
            }
            pending.extend(inner.into_iter().filter(|found| names.insert(found.clone())));
        }
        assert!(names.len() > 25, "request bodies found: {names:?}");
        let rows = table();
        let expected: BTreeMap<(&str, &str, &str), &Value> =
            rows.iter().map(|b| ((b.schema, b.property, b.keyword), &b.value)).collect();
        let mut seen = BTreeSet::new();
        // The configuration documents are the domain's own JSON Schemas, built from its constants.
        for (name, schema) in names
            .iter()
            .filter(|name| !super::super::is_configuration_document(name))
            .filter_map(|n| Some((n, schemas.get(n)?)))
        {
            let mut found = Vec::new();
            bounds(schema, "", &mut found);
            for (path, keyword, value) in found {
                let row = expected.get(&(name.as_str(), path.as_str(), keyword));
                if keyword == "pattern" && row.is_none() {
                    let pattern = value.as_str().unwrap();
                    assert!(
                        !pattern.contains('{'),
                        "{name} {path}: the pattern {pattern} counts characters; take its bound from the domain in `bounds::table`"
                    );
                    continue;
                }
                let row =
                    row.unwrap_or_else(|| panic!("{name} {path}: {keyword} {value} is no constant of `bounds::table`"));
                assert_eq!(&&value, row, "{name} {path} {keyword}");
                seen.insert((name.as_str(), path, keyword));
            }
        }
        for (schema, property, keyword) in expected.keys() {
            assert!(
                seen.contains(&(*schema, (*property).to_owned(), *keyword)),
                "{schema} {property} {keyword} of the table is in no request body of the document"
            );
        }
    }
}
