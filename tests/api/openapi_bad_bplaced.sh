#!/bin/sh
# Stands in for `bplaced --print-openapi` in the ctest
# openapi_lint_refuses_a_bad_document: a document without paths, license or
# servers, which redocly's recommended-strict rules must refuse.
echo '{"openapi": "3.1.0", "info": {"title": "broken", "version": "1"}}'
