"""What the lead does on the review pages that annotator.api.review did not: comment on an
item, and look for conflicts now.

    POST /api/projects/{slug}/review/{id}/comments/    body
    POST /api/projects/{slug}/review/scan/             (no body): 202, a scan is queued

Leads and admins (Can.REVIEW), like the rest of the review queue; the writes are
annotator.services.review's. An item's comments are read with the item
(GET /api/projects/{slug}/review/{id}/).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.review import CommentSerializer, ItemScoped
from annotator.api.views import ProjectScoped
from annotator.models import ReviewItem
from annotator.permissions import Can
from annotator.services.review import resolve, scan


class CommentCreateSerializer(serializers.Serializer[Any]):
    body = StrictCharField(max_length=resolve.MAX_COMMENT, help_text="What you have to say")


class ReviewComment(ItemScoped, generics.GenericAPIView[ReviewItem]):
    """Comment on an item, open or resolved (201: the comment)."""

    parser_classes = [BoundedJSONParser]
    # What POST reads: OPTIONS describes it from here.
    serializer_class = CommentCreateSerializer

    @extend_schema(request=CommentCreateSerializer, responses={201: CommentSerializer})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        item = self.get_object()
        form = CommentCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        comment = resolve.review_comment(
            item=item, actor=request.user, body=form.validated_data["body"]
        )
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)


class ScanQueuedSerializer(serializers.Serializer[Any]):
    queued = serializers.BooleanField(help_text="A scan of the project is queued")


class ReviewScan(ProjectScoped):
    """Look for conflicts now (the queue's own scan runs at most every few minutes): a task
    scans the project, and the items it raises appear in the queue. It reads no body, so it
    is no generic view: OPTIONS has no serializer to describe."""

    required_capability = Can.REVIEW

    @extend_schema(request=None, responses={202: ScanQueuedSerializer})
    def post(self, request: Request, slug: str) -> Response:
        scan.review_scan_request(project=self.get_project(), force=True)
        return Response({"queued": True}, status=status.HTTP_202_ACCEPTED)
