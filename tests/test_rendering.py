"""The result region is rendered where the scenario is evaluated (app/jobs.py result_page, app/rendering.py), without
Flask: it must be the very HTML Flask renders from the same laid-out result, for every example of the gallery, and a
large answer must cost the server process nothing but placing it."""

from __future__ import annotations

from flask import render_template

from app import examples, playground, rendering


def test_the_result_rendered_without_flask_is_the_one_flask_renders(app):
    with app.test_request_context():
        for example in examples.all_examples():
            result = playground.summarize(example.form())
            assert isinstance(result.get("html"), str), example.name
            laid_out = {key: value for key, value in result.items() if key != "html"}
            assert result["html"] == render_template("_result.html", result=laid_out), example.name


def test_the_page_places_the_rendered_region(client, monkeypatch):
    """The page and the htmx partial take the region as rendered by the job: the server renders no _result.html."""
    rendered: list[str] = []
    original = rendering.render_result
    monkeypatch.setattr(rendering, "render_result", lambda result: rendered.append("job") or original(result))
    form = examples.get("replica-limit").form()
    page = client.get("/?example=replica-limit").get_data(as_text=True)
    partial = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert rendered == ["job", "job"]
    assert '<section id="result"' in page and '<section id="result"' in partial
    assert page.count('<section id="result"') == 1

