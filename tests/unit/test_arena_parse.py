"""Reading arena replies: numbered question lists and 0..10 scores, written by hand."""

from pdbench.arena.parse import normalise_question, parse_questions

CATEGORIES = ["math", "logic", "ethics"]


def test_a_clean_list():
    reply = "1. [math] What is 2 + 2?\n2. [logic] Is every square a rectangle?"
    parsed = parse_questions(reply, categories=CATEGORIES)
    assert [(q.category, q.text) for q in parsed.questions] == [
        ("math", "What is 2 + 2?"),
        ("logic", "Is every square a rectangle?"),
    ]
    assert parsed.questions[1].raw_line == "2. [logic] Is every square a rectangle?"
    assert parsed.skipped == parsed.duplicates == ()


def test_preamble_blank_lines_and_other_numbering_styles():
    reply = (
        "Sure! Here are your questions:\n"
        "\n"
        "  1)  [Math]   Why is 0.999... equal to 1?  \n"
        "\n"
        "\n"
        "2.[ETHICS] May a lie ever be kind?\n"
        "Hope you like them."
    )
    parsed = parse_questions(reply, categories=CATEGORIES)
    assert [(q.category, q.text) for q in parsed.questions] == [
        ("math", "Why is 0.999... equal to 1?"),
        ("ethics", "May a lie ever be kind?"),
    ]
    assert parsed.skipped == ("Sure! Here are your questions:", "Hope you like them.")


def test_a_number_written_twice_counts_once():
    # as SmolLM2-135M numbered a list it had been asked for
    reply = (
        "1. 1. [math] What is the probability that a coin lands on its edge?\n"
        "2. 2) [logic] How many positive integers below 40 are not multiples of 5?\n"
        "3. [1] [math] Is this a question?"
    )
    parsed = parse_questions(reply, categories=CATEGORIES)
    assert [(q.category, q.text) for q in parsed.questions] == [
        ("math", "What is the probability that a coin lands on its edge?"),
        ("logic", "How many positive integers below 40 are not multiples of 5?"),
    ]
    assert parsed.skipped == ("3. [1] [math] Is this a question?",)


def test_duplicates_ignore_case_punctuation_and_spacing():
    reply = (
        "1. [math] What is 2 + 2?\n"
        "2. [logic] what is 2+2\n"
        "3. [math]   WHAT  is 2 + 2 ?!\n"
        "4. [math] What is 2 + 3?"
    )
    parsed = parse_questions(reply, categories=CATEGORIES)
    assert [q.text for q in parsed.questions] == ["What is 2 + 2?", "What is 2 + 3?"]
    assert parsed.duplicates == ("2. [logic] what is 2+2", "3. [math]   WHAT  is 2 + 2 ?!")


def test_lines_without_a_known_category_or_number_are_skipped():
    reply = (
        "1. What is the capital of France?\n"
        "2. [history] Who won in 1066?\n"
        "[math] Is 7 prime?\n"
        "3. [] Empty category?\n"
        "4. [logic]\n"
        "5. [logic] Can a barber shave himself?"
    )
    parsed = parse_questions(reply, categories=CATEGORIES)
    assert [q.text for q in parsed.questions] == ["Can a barber shave himself?"]
    assert len(parsed.skipped) == 5


def test_too_few_is_what_the_list_holds():
    parsed = parse_questions("1. [math] Only one?", categories=CATEGORIES)
    assert len(parsed.questions) == 1
    assert parse_questions("", categories=CATEGORIES).questions == ()


def test_normalised_text():
    assert normalise_question("  What's  2+2?! ") == "what s 2 2"
