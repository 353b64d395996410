"""Workshop exercises: each fails its checks as it starts and passes them all when solved; the
checks' requests never reach the browser."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest
import yaml

from app import exercises, vap
from app.forms import payload_from
from app.vap import suite

COURSE = exercises.all_exercises()


def form(values: dict[str, str]) -> dict[str, str]:
    return {**values, "testCases": ""}


def summary(html: str) -> str:
    match = re.search(r'data-checks-summary>\s*<strong class="verdict">([^<]*)</strong>', html)
    assert match, "no checks summary"
    return match.group(1)


def check_names(html: str) -> list[tuple[str, str]]:
    found = re.findall(r'<li data-status="(\w+)">.*?<span class="check-name">([^<]*)</span>', html, re.S)
    return [(status, htmllib.unescape(name)) for status, name in found]


def hidden_strings(exercise: exercises.Exercise) -> set[str]:
    """Names and values that only the hidden checks hold (never in the starting panes or the task)."""
    # (what the exercise's own panes evaluate to is shown too: the defaults the apiserver gives its object)
    own = json.dumps(vap.evaluate(payload_from(exercise.form())))
    shown = " ".join([*exercise.panes.values(), exercise.task, *(c.name for c in exercise.checks), own])
    found: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and len(value) > 3 and value not in shown:
            found.add(value)

    for case in exercise.checks:
        for pane in case.panes.values():
            walk(yaml.safe_load(pane) if isinstance(pane, str) else pane)
        walk(case.request)
    return found


def test_the_course_has_at_least_eight_exercises_in_order():
    assert len(COURSE) >= 8
    assert [e.number for e in COURSE] == sorted(e.number for e in COURSE)
    assert len({e.name for e in COURSE}) == len(COURSE)
    assert COURSE[0].name == "first-validation"


def test_the_course_reaches_params_match_conditions_and_audit_annotations():
    solutions = " ".join(" ".join(e.solution.values()) for e in COURSE)
    for field in ("paramKind:", "paramRef:", "matchConditions:", "auditAnnotations:", "messageExpression:",
                  "namespaceSelector:", "validationActions: [Warn]", "validationActions: [Audit]",
                  "kind: MutatingAdmissionPolicy", "patchType: ApplyConfiguration"):
        assert field in solutions, field


@pytest.mark.parametrize("exercise", COURSE, ids=[e.name for e in COURSE])
def test_starting_panes_fail_some_checks_and_the_solution_passes_all(exercise):
    start = exercise.check(payload_from(exercise.form()))
    assert 0 < start.passed + start.failed and start.passed < start.total
    assert start.errors == 0, [c.reasons for c in start.cases if c.status == "error"]
    solved = exercise.check(payload_from(exercise.solved_form()))
    assert solved.ok, [(c.case.name, c.reasons) for c in solved.cases if not c.passed]


@pytest.mark.parametrize("exercise", COURSE, ids=[e.name for e in COURSE])
def test_the_page_shows_k_of_n_and_never_the_hidden_requests(client, exercise):
    n = len(exercise.checks)
    page = client.get(f"/workshop/{exercise.name}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    start = exercise.check(payload_from(exercise.form()))
    assert summary(html) == f"{start.passed} of {n} checks pass"
    assert [name for _, name in check_names(html)] == [c.name for c in exercise.checks]
    assert exercise.title in html and "data-exercise" in html
    solved = client.post(f"/workshop/{exercise.name}/evaluate", data=form(exercise.solved_form()),
                         headers={"HX-Request": "true"})
    solved_html = solved.get_data(as_text=True)
    assert summary(solved_html) == f"{n} of {n} checks pass"
    assert 'id="checks" class="checks" aria-labelledby="checks-heading" hx-swap-oob="true"' in solved_html
    for text in (html, solved_html):
        leaked = [s for s in hidden_strings(exercise) if s in text]
        assert not leaked, leaked
        for value in exercise.solution.values():
            assert value not in text or value in exercise.panes.values()


def test_a_check_failing_says_what_was_expected_not_what_the_hidden_object_got(client):
    exercise = exercises.get("first-validation")
    html = client.get("/workshop/first-validation").get_data(as_text=True)
    assert "expected denied, message contains &#39;a Deployment may have at most 5 replicas&#39;; got allowed" in html
    # A denial message names the object: only its code and reason are shown.
    wrong = form({**exercise.form(), "policy": exercise.solution["policy"].replace("<= 5", "<= 2")})
    html = client.post("/workshop/first-validation/evaluate", data=wrong).get_data(as_text=True)
    assert "expected allowed; got denied 422 Invalid" in html
    assert "check-three" not in html and "forbidden" not in html.split('id="checks"')[1].split("</section>")[0]


def test_a_check_on_the_admitted_object_says_the_object_differs_not_how(client):
    html = client.get("/workshop/default-label").get_data(as_text=True)
    checks = html.split('id="checks"')[1].split("</section>")[0]
    assert ("expected allowed, object includes {&#34;metadata&#34;: {&#34;labels&#34;: {&#34;environment&#34;: "
            "&#34;dev&#34;}}}; got allowed, another object") in checks
    assert "missing" not in checks  # the difference itself is the check's secret


def test_overwriting_the_label_does_not_solve_the_default_label_exercise():
    exercise = exercises.get("default-label")
    always = exercise.solution["policy"].replace('!has(object.metadata.labels) || !("environment" in '
                                                 'object.metadata.labels)', "true")
    assert always != exercise.solution["policy"]
    result = exercise.check(payload_from({**exercise.solved_form(), "policy": always}))
    failed = [c for c in result.cases if not c.passed]
    assert [c.case.name for c in failed] == ["a Deployment labelled environment=prod keeps prod",
                                             "an update keeps the label it gives"]
    assert failed[0].reasons == ['the admitted object differs: metadata.labels.environment: expected "prod", '
                                 'got "dev"']


def test_args_in_an_apply_configuration_is_refused_in_the_sidecar_exercise():
    exercise = exercises.get("sidecar-without-atomic-fields")
    start = exercise.check(payload_from(exercise.form()))
    refused = [c for c in start.cases if not c.passed]
    assert refused and all("may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args"
                           in c.reasons[0] for c in refused)


def test_putting_the_exemption_in_the_expression_does_not_solve_the_match_conditions_exercise():
    exercise = exercises.get("match-conditions")
    policy = exercise.panes["policy"].replace(
        'expression: "object.spec.replicas <= 5"',
        "expression: \"request.userInfo.username.startsWith('system:serviceaccount:kube-system:') || "
        'object.spec.replicas <= 5"')
    result = exercise.check(payload_from({**exercise.form(), "policy": policy}))
    failed = [c for c in result.cases if not c.passed]
    assert [c.case.name for c in failed] == [
        "a kube-system service account asking for 9 replicas is not checked (the policy is skipped)"]
    assert failed[0].reasons == ["expected policy max-replicas.example.com: skip, got pass"]


def test_a_hard_coded_limit_does_not_solve_the_params_exercise():
    exercise = exercises.get("params")
    binding = exercise.solution["binding"]
    policy = exercise.solution["policy"].replace("int(params.data.maxReplicas)", "5")
    result = exercise.check(payload_from({**exercise.form(), "policy": policy, "binding": binding}))
    assert not result.ok


def test_workshop_list_links_every_exercise(client):
    html = client.get("/workshop").get_data(as_text=True)
    for e in COURSE:
        assert f'href="/workshop/{e.name}"' in html and e.title in html
    assert client.get("/").get_data(as_text=True).count('href="/workshop/"') == 1


def test_unknown_exercise_is_404(client):
    response = client.get("/workshop/no-such-exercise")
    assert response.status_code == 404
    assert "no exercise called" in response.get_data(as_text=True)


def test_exercise_page_without_javascript_posts_back_the_whole_page(client):
    exercise = exercises.get("first-validation")
    response = client.post("/workshop/first-validation/evaluate", data=form(exercise.solved_form()))
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" in html
    assert summary(html) == "4 of 4 checks pass"
    assert "Content-Security-Policy" in response.headers


def test_exercise_files_are_valid_suites():
    for exercise in COURSE:
        assert all(isinstance(c, suite.TestCase) and not c.problems for c in exercise.checks)
        assert exercise.summary and len(exercise.task.split()) >= 40
