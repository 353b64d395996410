"""An UPDATE's old and new object, side by side in the result: on a laptop and on a phone."""

from __future__ import annotations

import pytest

from app import examples

from .test_phone import phone, phone_screenshot  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

EXAMPLE = "/?example=immutable-on-update"


def unfold(page):
    """Open the folded section; return it."""
    section = page.locator("#result [data-old-new]")
    assert section.locator("details").first.get_attribute("open") is None  # folded at first
    section.locator("summary", has_text="Old and new object").click()
    return section


def test_a_changed_field_shows_its_old_and_new_value(page, screenshot):
    page.goto(EXAMPLE)
    section = unfold(page)
    assert "fields differ" in section.locator("summary").first.inner_text()
    team = section.locator('tr[data-field="metadata.labels.team"]')
    assert team.get_attribute("data-op") == "replace"
    assert team.locator(".old-value").inner_text() == '"payments"'
    assert team.locator(".new-value").inner_text() == '"search"'
    image = section.locator('tr[data-field="spec.template.spec.containers[0].image"]')
    assert "checkout:2.0.1" in image.locator(".old-value").inner_text()
    assert "checkout:2.0.2" in image.locator(".new-value").inner_text()
    # the stored object, pasted without managedFields, is taken as created by kubectl apply (the update's own
    # manager): its entry is the same after the update, so managedFields is among the unchanged fields
    assert section.locator('tr[data-op="add"]').count() == 0
    # the unchanged fields are folded and dimmed, each once
    same = section.locator("[data-old-new-same]")
    assert not same.locator('tr[data-field="spec.replicas"]').is_visible()
    same.locator("summary").click()
    replicas = same.locator('tr[data-field="spec.replicas"]')
    assert replicas.locator(".same-value").inner_text() == "2"
    assert same.locator('tr[data-field^="metadata.managedFields"]').count() >= 1
    assert section.locator('tr[data-field="metadata.labels.team"]').count() == 1
    section.scroll_into_view_if_needed()
    screenshot("laptop")


def test_no_section_for_a_create(page):
    page.goto("/")
    assert page.locator("#result").get_attribute("data-decision")
    assert page.locator("#result [data-old-new]").count() == 0


def test_on_a_phone_the_two_sides_stack(phone, phone_screenshot):  # noqa: F811
    phone.goto(EXAMPLE)
    section = unfold(phone)
    team = section.locator('tr[data-field="metadata.labels.team"]')
    old_box = team.locator(".old-value").bounding_box()
    new_box = team.locator(".new-value").bounding_box()
    assert new_box["y"] >= old_box["y"] + old_box["height"] - 1  # below, not beside
    assert abs(new_box["x"] - old_box["x"]) < 2
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    team.scroll_into_view_if_needed()
    phone_screenshot("phone")


def test_values_are_escaped(client):
    values = examples.get("immutable-on-update").form()
    values["object"] = values["object"].replace("team: search", "team: '<b>search</b>'")
    html = client.post("/evaluate", data=values, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "&#34;&lt;b&gt;search&lt;/b&gt;&#34;" in html or "&quot;&lt;b&gt;search&lt;/b&gt;&quot;" in html
    assert "<b>search</b>" not in html
