//! What went wrong, in the user's words: a form [`Problem`] (label `problem.<code>`, its placeholders
//! filled from the problem's values) and a task's bad end ([`TaskProblem`]). The protocol layer names
//! problems; the words live only in [`super::labels`].
use crate::protocol::form::Problem;

use super::card_model::TaskProblem;
use super::labels::Labels;

/// The message for `problem` in `labels`' language.
pub fn problem_text(labels: &Labels, problem: &Problem) -> String {
    let params = problem.params();
    let mut values = Vec::with_capacity(params.len());
    for (name, value) in &params {
        values.push((*name, value.as_str()));
    }
    let mut key = String::from("problem.");
    key.push_str(problem.code());
    labels.fill(&key, &values)
}

/// Why a failed, expired or cancelled task ended, in `labels`' language.
pub fn task_problem_text(labels: &Labels, problem: &TaskProblem) -> String {
    match problem {
        TaskProblem::Failed { message, code } => {
            let mut text = labels.fill("error.failed", &[("message", message)]);
            text.push_str(" (");
            text.push_str(&labels.fill("error.code", &[("code", &crate::text::signed(*code))]));
            text.push(')');
            text
        }
        TaskProblem::ExpiredTtl => labels.get("error.expiredTtl").to_owned(),
        TaskProblem::ExpiredUnknown => labels.get("error.expiredUnknown").to_owned(),
        TaskProblem::Cancelled => labels.get("error.cancelled").to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::model::labels::{LABELS, SHIPPED};
    use crate::json::Number;

    fn num(text: &str) -> Number {
        text.parse().unwrap()
    }

    /// One of each problem.
    fn every_problem() -> [Problem; 18] {
        [
            Problem::Required,
            Problem::TooShort { min: 2 },
            Problem::TooLong { max: 2 },
            Problem::InvalidEmail,
            Problem::InvalidUri,
            Problem::InvalidDate,
            Problem::InvalidDateTime,
            Problem::NotANumber,
            Problem::NotAnInteger,
            Problem::BelowMinimum { min: num("0.5") },
            Problem::AboveMaximum { max: num("0.5") },
            Problem::NotABoolean,
            Problem::NotAnOption { value: "v".into() },
            Problem::TooFewItems { min: 2 },
            Problem::TooManyItems { max: 2 },
            Problem::DuplicateItem { value: "v".into() },
            Problem::UnknownField,
            Problem::WrongType { expected: "string" },
        ]
    }

    #[test]
    fn problems_read_in_each_language_with_their_bounds() {
        let en = Labels::resolve("en", &[]);
        let th = Labels::resolve("th", &[]);
        assert_eq!(problem_text(&en, &Problem::AboveMaximum { max: num("5") }), "Enter 5 or less.");
        assert_eq!(problem_text(&en, &Problem::BelowMinimum { min: num("0.5") }), "Enter 0.5 or more.");
        // Bounds read as the schema wrote them, never through a double.
        assert_eq!(
            problem_text(&en, &Problem::AboveMaximum { max: num("203.02700000000002") }),
            "Enter 203.02700000000002 or less."
        );
        assert_eq!(problem_text(&en, &Problem::AboveMaximum { max: num("1e400") }), "Enter 1e400 or less.");
        assert_eq!(problem_text(&en, &Problem::TooFewItems { min: 1 }), "Choose at least 1.");
        assert_eq!(problem_text(&en, &Problem::TooShort { min: 3 }), "Enter at least 3 characters.");
        assert_eq!(problem_text(&th, &Problem::Required), "กรุณากรอกช่องนี้");
        assert_eq!(problem_text(&th, &Problem::TooLong { max: 20 }), "กรอกได้ไม่เกิน 20 ตัวอักษร");
    }

    #[test]
    fn every_problem_has_words_in_every_shipped_language_and_no_two_share_them() {
        assert_eq!(SHIPPED.len(), 2, "a new language needs its column checked here");
        let mut seen = Vec::new();
        for problem in every_problem() {
            let key = format!("problem.{}", problem.code());
            assert!(LABELS.iter().any(|(k, ..)| *k == key), "{key} has no words");
            for lang in SHIPPED {
                let text = problem_text(&Labels::resolve(lang, &[]), &problem);
                assert!(!text.contains('{'), "{key} in {lang} leaves a placeholder: {text}");
                assert!(!seen.contains(&text), "{key} in {lang} says the same as another problem");
                seen.push(text);
            }
        }
        let problem_keys = LABELS.iter().filter(|(k, ..)| k.starts_with("problem.")).count();
        assert_eq!(problem_keys, every_problem().len(), "a problem label no problem uses");
    }

    #[test]
    fn a_task_problem_names_the_error_and_its_code() {
        let en = Labels::resolve("en", &[]);
        let failed = TaskProblem::Failed { message: "Deployment rejected".into(), code: -32000 };
        assert_eq!(task_problem_text(&en, &failed), "The task failed: Deployment rejected (Error code -32000)");
        assert_eq!(task_problem_text(&en, &TaskProblem::Cancelled), "The task was cancelled.");
    }
}
