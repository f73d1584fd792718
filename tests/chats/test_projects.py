"""Project scope: one repository is one project in every clone and sub-folder; one project's lessons are never
visible in another's."""

from __future__ import annotations

import pytest

from chats.models import AgentProject, ChatSession, Lesson
from chats.projects import ProjectRef, find_project, normalise_path, normalise_remote, resolve_project
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Owner/Name.git", "github.com/owner/name"),
        ("https://user:ghp_secret@GitHub.com/Owner/Name.git", "github.com/owner/name"),
        ("ssh://git@gitlab.example.org:2222/group/sub/proj.git/", "gitlab.example.org/group/sub/proj"),
        ("https://codeberg.org/someone/tool", "codeberg.org/someone/tool"),
        ("/srv/git/local.git", ""),
        ("../sibling", ""),
        ("", ""),
    ],
)
def test_a_remote_is_named_without_scheme_user_password_or_dot_git(url, expected):
    assert normalise_remote(url) == expected


def test_paths_are_absolute_and_spelled_one_way():
    assert normalise_path("/home/dev/shop/") == "/home/dev/shop"
    assert normalise_path("/home/dev/./shop/../tools") == "/home/dev/tools"
    assert normalise_path("C:\\src\\shop") == "C:/src/shop"
    assert normalise_path("relative/dir") == ""


@pytest.mark.django_db
def test_a_repository_is_one_project_in_every_clone_and_worktree(user):
    a = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop/api", root="/home/dev/shop",
                                                   repository="git@github.com:acme/shop.git"))  # fmt: skip
    b = resolve_project(owner=user, ref=ProjectRef(cwd="/tmp/wt/feature", root="/tmp/wt/feature",
                                                   repository="https://github.com/ACME/shop"))  # fmt: skip
    assert a == b and a.key == "repo:github.com/acme/shop" and a.name == "shop"
    assert AgentProject.objects.filter(owner=user).count() == 1


@pytest.mark.django_db
def test_a_sub_folder_belongs_to_the_project_whose_folder_contains_it(user):
    repo = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop", root="/home/dev/shop"))
    assert resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop/web/src")) == repo
    other = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shopping"))
    assert other != repo  # a folder that only shares a prefix of the name is another project


@pytest.mark.django_db
def test_a_root_found_later_absorbs_folder_projects_made_inside_it(user):
    data = SessionIn(source_key="chat:claude-code", external_id="s1", project="/home/dev/shop/web",
                     turns=[TurnIn(role="user", text="Tidy the web build")])  # fmt: skip
    session = store_session(owner=user, data=data).session
    first = session.agent_project
    assert first is not None and first.root == "/home/dev/shop/web"
    repo = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop", root="/home/dev/shop",
                                                      repository="git@github.com:acme/shop.git"))  # fmt: skip
    session.refresh_from_db()
    assert session.agent_project == repo
    assert not AgentProject.objects.filter(pk=first.pk).exists()


@pytest.mark.django_db
def test_find_project_never_creates_one(user):
    assert find_project(user, ProjectRef(cwd="/home/dev/new")) is None
    assert not AgentProject.objects.filter(owner=user).exists()


@pytest.mark.django_db
def test_no_absolute_folder_and_no_remote_is_no_project(user):
    assert resolve_project(owner=user, ref=ProjectRef(cwd="relative")) is None
    assert resolve_project(owner=user, ref=ProjectRef()) is None


@pytest.mark.django_db
def test_one_projects_lessons_are_not_visible_in_another(user):
    shop = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop"))
    blog = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/blog"))
    from django.utils import timezone

    def lesson(key, project):
        return Lesson.objects.create(owner=user, key=key, kind="correction", text=key, agent_project=project,
                                     last_seen_at=timezone.now())  # fmt: skip

    mine, theirs, everywhere = lesson("shop", shop), lesson("blog", blog), lesson("all", None)
    assert set(Lesson.objects.owned_by(user).visible_in(shop)) == {mine, everywhere}
    assert set(Lesson.objects.owned_by(user).visible_in(None)) == {everywhere}
    assert theirs not in Lesson.objects.owned_by(user).visible_in(shop)


@pytest.mark.django_db
def test_another_owners_project_is_never_matched(user, other_user):
    mine = resolve_project(owner=user, ref=ProjectRef(cwd="/home/dev/shop", repository="git@github.com:a/shop"))
    theirs = resolve_project(owner=other_user, ref=ProjectRef(cwd="/home/dev/shop", repository="git@github.com:a/shop"))
    assert mine != theirs and theirs.owner == other_user
    assert ChatSession.objects.in_project(mine).count() == 0
