//! The per-request `_meta` every 2026-07-28 request carries: protocol version, client info, capabilities.
use crate::collections::SortedMap;

use crate::json::Value;

use super::fields::{self, Object};
use super::{DecodeError, PROTOCOL_VERSION, TASKS_EXTENSION};

/// `_meta` key for the protocol version (required).
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key for the client's capabilities (required).
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key for the client's self-description (should be sent).
pub(crate) const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key a server puts on results to describe itself.
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key tying a notification or listen result to its subscription.
pub(crate) const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// `Implementation`: a peer's self-description. Self-reported, so never a basis for security decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implementation {
    /// Programmatic name.
    pub(crate) name: String,
    /// Version string.
    pub(crate) version: String,
    /// Display name, if any.
    pub(crate) title: Option<String>,
}

impl Implementation {
    /// A name and version with no title.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self { name: name.into(), version: version.into(), title: None }
    }

    /// The object as on the wire.
    pub fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put("name", Value::from(self.name.as_str()));
        obj.put("version", Value::from(self.version.as_str()));
        if let Some(title) = &self.title {
            obj.put("title", Value::from(title.as_str()));
        }
        Value::Object(obj)
    }

    /// Reads an `Implementation`; unknown fields (icons, websiteUrl…) are ignored.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "Implementation";
        let obj = fields::object(value, WHAT)?;
        Ok(Self {
            name: fields::required_str(obj, WHAT, "name")?.to_owned(),
            version: fields::required_str(obj, WHAT, "version")?.to_owned(),
            title: fields::optional_str(obj, WHAT, "title")?.map(str::to_owned),
        })
    }
}

/// Which elicitation modes the client renders. `{}` on the wire means form only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElicitationCapability {
    /// Form mode (a schema-driven form).
    pub(crate) form: bool,
    /// URL mode (open a third-party page after consent).
    pub(crate) url: bool,
}

/// `ClientCapabilities` for 2026-07-28. Servers must not remember these between requests, so the same
/// object goes on every request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientCapabilities {
    /// Elicitation modes, if any.
    pub(crate) elicitation: Option<ElicitationCapability>,
    /// Sampling (deprecated feature), passed through as sent.
    pub(crate) sampling: Option<Value>,
    /// Roots (deprecated feature), passed through as sent.
    pub(crate) roots: Option<Value>,
    /// Experimental capabilities, passed through.
    pub(crate) experimental: Option<Value>,
    /// Declared extensions by id, with their settings.
    pub extensions: SortedMap<String, Value>,
}

impl ClientCapabilities {
    /// What a task client declares: the Tasks extension (settings `{}`) and the elicitation modes it renders.
    pub(crate) fn task_client(form: bool, url: bool) -> Self {
        let mut extensions = SortedMap::new();
        extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(Object::new()));
        let elicitation = (form || url).then_some(ElicitationCapability { form, url });
        Self { elicitation, extensions, ..Self::default() }
    }

    /// Whether the Tasks extension is declared.
    pub fn declares_tasks(&self) -> bool {
        self.extensions.contains_key(TASKS_EXTENSION)
    }

    /// The object as on the wire. `elicitation` is written with explicit modes (`{"form":{},"url":{}}`).
    pub(crate) fn to_json(&self) -> Value {
        let mut obj = Object::new();
        if let Some(el) = self.elicitation {
            let mut modes = Object::new();
            if el.form {
                modes.put("form", Value::Object(Object::new()));
            }
            if el.url {
                modes.put("url", Value::Object(Object::new()));
            }
            obj.put("elicitation", Value::Object(modes));
        }
        for (key, value) in [("sampling", &self.sampling), ("roots", &self.roots), ("experimental", &self.experimental)]
        {
            if let Some(v) = value {
                obj.put(key, v.clone());
            }
        }
        if !self.extensions.is_empty() {
            let mut ext = Object::new();
            for (k, v) in self.extensions.iter() {
                ext.insert(k.clone(), v.clone());
            }
            obj.put("extensions", Value::Object(ext));
        }
        Value::Object(obj)
    }

    /// Reads capabilities. `elicitation: {}` means form mode only, as the spec says.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "ClientCapabilities";
        let obj = fields::object(value, WHAT)?;
        let elicitation = fields::optional_object(obj, WHAT, "elicitation")?.map(|el| {
            let form = el.contains_key("form");
            let url = el.contains_key("url");
            ElicitationCapability { form: form || !url, url }
        });
        let extensions = fields::optional_object(obj, WHAT, "extensions")?
            .map(|ext| {
                let mut extensions = SortedMap::new();
                for (k, v) in ext.iter() {
                    extensions.insert(k.to_owned(), v.clone());
                }
                extensions
            })
            .unwrap_or_default();
        Ok(Self {
            elicitation,
            sampling: obj.get("sampling").cloned(),
            roots: obj.get("roots").cloned(),
            experimental: obj.get("experimental").cloned(),
            extensions,
        })
    }
}

/// Checks the Tasks extension's settings object: 2026-07-28 defines none, so only `{}` is valid.
pub fn check_tasks_extension_settings(value: &Value) -> Result<(), DecodeError> {
    match value.as_object() {
        Some(obj) if obj.is_empty() => Ok(()),
        Some(obj) => Err(DecodeError::Invalid {
            what: "Tasks extension settings",
            detail: format!(
                "2026-07-28 defines no settings, so the value must be {{}}; found keys {}",
                crate::text::comma_list(&obj.keys().map(str::to_owned).collect::<Vec<_>>())
            ),
        }),
        None => Err(DecodeError::NotAnObject { what: "Tasks extension settings" }),
    }
}

/// The per-request `params._meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// Must equal the `MCP-Protocol-Version` header.
    pub protocol_version: String,
    /// The client's self-description.
    pub(crate) client_info: Option<Implementation>,
    /// The capabilities this request declares.
    pub client_capabilities: ClientCapabilities,
    /// Opts in to `notifications/progress` for this one request.
    pub(crate) progress_token: Option<Value>,
}

impl RequestMeta {
    /// The `_meta` a task client sends: this crate's protocol version, its info and task capabilities.
    pub fn task_client(client_info: Implementation, form: bool, url: bool) -> Self {
        Self {
            protocol_version: PROTOCOL_VERSION.to_owned(),
            client_info: Some(client_info),
            client_capabilities: ClientCapabilities::task_client(form, url),
            progress_token: None,
        }
    }

    /// The `_meta` object as on the wire.
    pub fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put(META_PROTOCOL_VERSION, Value::from(self.protocol_version.as_str()));
        if let Some(info) = &self.client_info {
            obj.put(META_CLIENT_INFO, info.to_json());
        }
        obj.put(META_CLIENT_CAPABILITIES, self.client_capabilities.to_json());
        if let Some(token) = &self.progress_token {
            obj.put("progressToken", token.clone());
        }
        Value::Object(obj)
    }

    /// Reads `params._meta` (server side). A missing protocol version or capabilities object is an error
    /// the server must answer with -32602 and HTTP 400.
    pub fn from_params(params: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "params._meta";
        let params = fields::object(params, "params")?;
        let meta = match params.get("_meta") {
            None | Some(Value::Null) => return Err(DecodeError::MissingField { what: "params", field: "_meta" }),
            Some(m) => fields::object(m, WHAT)?,
        };
        let protocol_version = fields::required_str(meta, WHAT, META_PROTOCOL_VERSION)?.to_owned();
        let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
            None => return Err(DecodeError::MissingField { what: WHAT, field: META_CLIENT_CAPABILITIES }),
            Some(caps) => ClientCapabilities::from_json(caps)?,
        };
        let client_info = match meta.get(META_CLIENT_INFO) {
            None | Some(Value::Null) => None,
            Some(info) => Some(Implementation::from_json(info)?),
        };
        Ok(Self {
            protocol_version,
            client_info,
            client_capabilities,
            progress_token: meta.get("progressToken").cloned(),
        })
    }
}
