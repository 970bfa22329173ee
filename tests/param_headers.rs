//! `x-mcp-header` bindings and the `Mcp-Param-*` headers they produce.
use mcp_tasks_web::json::json;
use mcp_tasks_web::protocol::param_headers::{bindings, headers, InvalidAnnotation};

#[test]
fn annotated_arguments_become_headers() {
    let schema = json!({ "type": "object", "properties": {
        "region": { "type": "string", "x-mcp-header": "Region" },
        "priority": { "type": "integer", "x-mcp-header": "Priority" },
        "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
        "empty": { "type": "string", "x-mcp-header": "EmptyVal" },
        "text": { "type": "string", "x-mcp-header": "NonAscii" },
        "tab": { "type": "string", "x-mcp-header": "Tab" },
        "inner": { "type": "string", "x-mcp-header": "InternalSpace" },
        "query": { "type": "string" },
        "nested": { "type": "object", "properties": { "zone": { "type": "string", "x-mcp-header": "Zone" } } }
    }});
    let b = bindings(&schema).expect("valid");
    let args = json!({ "region": "us-west1", "priority": 42, "verbose": false, "empty": "", "text": "Hello, 世界",
                       "tab": "\tindented", "inner": "us west 1", "query": "SELECT 1", "nested": { "zone": "b" } });
    let mut h = headers(&b, args.as_object());
    h.sort();
    assert_eq!(
        h,
        vec![
            ("Mcp-Param-EmptyVal".to_string(), "".to_string()),
            ("Mcp-Param-InternalSpace".to_string(), "us west 1".to_string()),
            ("Mcp-Param-NonAscii".to_string(), "=?base64?SGVsbG8sIOS4lueVjA==?=".to_string()),
            ("Mcp-Param-Priority".to_string(), "42".to_string()),
            ("Mcp-Param-Region".to_string(), "us-west1".to_string()),
            ("Mcp-Param-Tab".to_string(), "=?base64?CWluZGVudGVk?=".to_string()),
            ("Mcp-Param-Verbose".to_string(), "false".to_string()),
            ("Mcp-Param-Zone".to_string(), "b".to_string()),
        ]
    );
    // Null, absent and mistyped values send no header.
    let sparse = json!({ "region": null, "priority": "high", "verbose": true });
    assert_eq!(headers(&b, sparse.as_object()), vec![("Mcp-Param-Verbose".to_string(), "true".to_string())]);
    assert!(headers(&b, None).is_empty());
}

#[test]
fn invalid_annotations_are_refused() {
    let bad = |prop: mcp_tasks_web::json::Value| bindings(&json!({ "type": "object", "properties": { "a": prop } }));
    assert!(matches!(bad(json!({ "type": "string", "x-mcp-header": "" })), Err(InvalidAnnotation::BadName(_))));
    assert!(matches!(
        bad(json!({ "type": "string", "x-mcp-header": "has space" })),
        Err(InvalidAnnotation::BadName(_))
    ));
    assert!(matches!(bad(json!({ "type": "string", "x-mcp-header": "Ünï" })), Err(InvalidAnnotation::BadName(_))));
    assert!(matches!(bad(json!({ "type": "string", "x-mcp-header": 7 })), Err(InvalidAnnotation::BadName(_))));
    assert!(matches!(bad(json!({ "type": "number", "x-mcp-header": "N" })), Err(InvalidAnnotation::BadType { .. })));
    assert!(matches!(bad(json!({ "type": "object", "x-mcp-header": "O" })), Err(InvalidAnnotation::BadType { .. })));
    let dup = json!({ "type": "object", "properties": {
        "a": { "type": "string", "x-mcp-header": "Region" },
        "b": { "type": "string", "x-mcp-header": "region" } } });
    assert!(matches!(bindings(&dup), Err(InvalidAnnotation::Duplicate(_))));
    assert_eq!(bindings(&json!({ "type": "object" })), Ok(vec![]));
}
