//! `subscriptions/listen` and what arrives on its stream: the acknowledgement, `notifications/tasks`,
//! and the closing result.
use crate::json::Value;

use super::fields::{self, Object};
use super::jsonrpc::{notification, RequestId};
use super::meta::META_SUBSCRIPTION_ID;
use super::task::DetailedTask;
use super::DecodeError;

/// The `notifications` filter of a listen request. Only `taskIds` is modelled; other core filter keys
/// (`toolsListChanged`, …) are kept as sent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListenFilter {
    /// Tasks to receive `notifications/tasks` for.
    pub task_ids: Option<Vec<String>>,
    /// Other filter keys, passed through.
    pub(crate) other: Object,
}

impl ListenFilter {
    /// A filter for these tasks only.
    pub fn tasks(task_ids: Vec<String>) -> Self {
        Self { task_ids: Some(task_ids), other: Object::new() }
    }

    /// The filter object as on the wire.
    pub(crate) fn to_json(&self) -> Value {
        let mut obj = self.other.clone();
        if let Some(ids) = &self.task_ids {
            obj.put("taskIds", Value::from(ids.clone()));
        }
        Value::Object(obj)
    }

    /// Reads a filter; `taskIds`, when present, must be an array of strings.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "notifications filter";
        let obj = fields::object(value, WHAT)?;
        let task_ids = match obj.get("taskIds") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                crate::json::string_items(items)
                    .ok_or_else(|| fields::wrong_type(WHAT, "taskIds", "an array of strings"))?,
            ),
            Some(_) => return Err(fields::wrong_type(WHAT, "taskIds", "an array of strings")),
        };
        let mut other = obj.clone();
        other.remove("taskIds");
        Ok(Self { task_ids, other })
    }
}

/// A notification a task client may receive.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotification {
    /// `notifications/subscriptions/acknowledged`: which of the requested filters the server accepted.
    /// Task ids not listed must still be polled.
    SubscriptionAcknowledged {
        /// The listen request's id.
        subscription_id: Option<RequestId>,
        /// The accepted filter.
        accepted: ListenFilter,
    },
    /// `notifications/tasks`: the full task, to be handled exactly like a `tasks/get` result.
    TaskStatus {
        /// The listen request's id.
        subscription_id: Option<RequestId>,
        /// The task as `tasks/get` would return it now.
        task: DetailedTask,
    },
    /// `notifications/cancelled` (a server tearing down a listen, among others).
    Cancelled {
        /// The request it cancels.
        request_id: Option<RequestId>,
        /// Why, if said.
        reason: Option<String>,
    },
    /// `notifications/progress` for an in-flight request; params kept as sent.
    Progress(Value),
    /// Any other notification, kept by name.
    Other {
        /// The method.
        method: String,
    },
}

fn subscription_id(obj: &Object) -> Result<Option<RequestId>, DecodeError> {
    match obj.get("_meta").and_then(|m| m.get(META_SUBSCRIPTION_ID)) {
        None | Some(Value::Null) => Ok(None),
        Some(id) => RequestId::from_json(id).map(Some),
    }
}

impl ServerNotification {
    /// Reads a notification from its method and params.
    pub fn decode(method: &str, params: &Value) -> Result<Self, DecodeError> {
        match method {
            "notifications/subscriptions/acknowledged" => {
                const WHAT: &str = "subscriptions/acknowledged params";
                let obj = fields::object(params, WHAT)?;
                let filter =
                    obj.get("notifications").ok_or(DecodeError::MissingField { what: WHAT, field: "notifications" })?;
                Ok(Self::SubscriptionAcknowledged {
                    subscription_id: subscription_id(obj)?,
                    accepted: ListenFilter::from_json(filter)?,
                })
            }
            "notifications/tasks" => {
                const WHAT: &str = "notifications/tasks params";
                let obj = fields::object(params, WHAT)?;
                Ok(Self::TaskStatus {
                    subscription_id: subscription_id(obj)?,
                    task: DetailedTask::from_object(obj, WHAT)?,
                })
            }
            "notifications/cancelled" => {
                const WHAT: &str = "notifications/cancelled params";
                let obj = fields::object(params, WHAT)?;
                let request_id = match obj.get("requestId") {
                    None | Some(Value::Null) => None,
                    Some(id) => Some(RequestId::from_json(id)?),
                };
                Ok(Self::Cancelled {
                    request_id,
                    reason: fields::optional_str(obj, WHAT, "reason")?.map(str::to_owned),
                })
            }
            "notifications/progress" => Ok(Self::Progress(params.clone())),
            other => Ok(Self::Other { method: other.to_owned() }),
        }
    }
}

fn meta_with_subscription(id: &RequestId) -> Value {
    let mut meta = Object::new();
    meta.put(META_SUBSCRIPTION_ID, id.to_json());
    Value::Object(meta)
}

/// The acknowledgement a server sends first on a listen stream.
pub fn acknowledged_notification(subscription: &RequestId, accepted: &ListenFilter) -> Value {
    notification(
        "notifications/subscriptions/acknowledged",
        crate::json::json!({ "notifications": accepted.to_json(), "_meta": meta_with_subscription(subscription) }),
    )
}

/// A `notifications/tasks` message carrying the full task.
pub fn task_notification(subscription: &RequestId, task: &DetailedTask) -> Value {
    let mut params = Object::new();
    task.write_into(&mut params);
    params.put("_meta", meta_with_subscription(subscription));
    notification("notifications/tasks", Value::Object(params))
}

/// The result that closes a listen stream gracefully.
pub fn listen_closed_result(subscription: &RequestId) -> Value {
    crate::json::json!({ "resultType": "complete", "_meta": meta_with_subscription(subscription) })
}

/// Reads the closing result of a listen stream and returns the subscription it ends.
pub fn decode_listen_closed(value: &Value) -> Result<Option<RequestId>, DecodeError> {
    let obj = fields::object(value, "subscriptions/listen result")?;
    super::result_type::expect_complete(obj, "subscriptions/listen")?;
    subscription_id(obj)
}
