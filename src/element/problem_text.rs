//! A form [`Problem`] in the user's words: the label key and the values of its placeholders.
use crate::json::display_f64;
use crate::protocol::form::Problem;

use super::labels::Labels;

/// The message for `problem` in `labels`' language.
pub fn problem_text(labels: &Labels, problem: &Problem) -> String {
    let (key, values): (&str, Vec<(&str, String)>) = match problem {
        Problem::Required => ("problem.required", vec![]),
        Problem::TooShort { min } => ("problem.tooShort", vec![("min", min.to_string())]),
        Problem::TooLong { max } => ("problem.tooLong", vec![("max", max.to_string())]),
        Problem::InvalidEmail => ("problem.email", vec![]),
        Problem::InvalidUri => ("problem.uri", vec![]),
        Problem::InvalidDate => ("problem.date", vec![]),
        Problem::InvalidDateTime => ("problem.dateTime", vec![]),
        Problem::NotANumber => ("problem.number", vec![]),
        Problem::NotAnInteger => ("problem.integer", vec![]),
        Problem::BelowMinimum { min } => ("problem.min", vec![("min", display_f64(*min))]),
        Problem::AboveMaximum { max } => ("problem.max", vec![("max", display_f64(*max))]),
        Problem::NotABoolean => ("problem.boolean", vec![]),
        Problem::NotAnOption { .. } => ("problem.option", vec![]),
        Problem::TooFewItems { min } => ("problem.tooFew", vec![("min", min.to_string())]),
        Problem::TooManyItems { max } => ("problem.tooMany", vec![("max", max.to_string())]),
        Problem::DuplicateItem { .. } => ("problem.duplicate", vec![]),
        Problem::UnknownField => ("problem.unknown", vec![]),
        Problem::WrongType { .. } => ("problem.type", vec![]),
    };
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    labels.fill(key, &values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_read_in_each_language_with_their_bounds() {
        let en = Labels::resolve("en", &[]);
        let th = Labels::resolve("th", &[]);
        assert_eq!(problem_text(&en, &Problem::AboveMaximum { max: 5.0 }), "Enter 5 or less.");
        assert_eq!(problem_text(&en, &Problem::BelowMinimum { min: 0.5 }), "Enter 0.5 or more.");
        assert_eq!(problem_text(&en, &Problem::TooFewItems { min: 1 }), "Choose at least 1.");
        assert_eq!(problem_text(&th, &Problem::Required), "กรุณากรอกช่องนี้");
        assert_eq!(problem_text(&th, &Problem::TooLong { max: 20 }), "กรอกได้ไม่เกิน 20 ตัวอักษร");
    }
}
