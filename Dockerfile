# The bot in a container: slim Python, a non-root user, the SQLite database on the /data volume (or PostgreSQL,
# whose driver it includes: compose.yaml). DATA_DIR, not DATABASE_URL, puts the database on the volume, so an
# .env that leaves DATABASE_URL out or empty (as .env.example does) keeps it there.
# A fixed Python release on a fixed Debian; the dependencies at the versions in requirements.lock.
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data \
    METRICS_PORT=9108

RUN useradd --create-home --uid 10001 bot && mkdir /data && chown bot /data
WORKDIR /app

# Dependencies first, so this layer is reused while only the code changes.
COPY pyproject.toml README.md requirements.lock ./
RUN mkdir bot cogs && touch bot/__init__.py cogs/__init__.py && pip install -c requirements.lock ".[postgres]" && pip uninstall -y rules-dice-bot
COPY bot/ bot/
COPY cogs/ cogs/
RUN pip install --no-deps .

USER bot
VOLUME ["/data"]
# Secrets come at run time (docker run --env-file .env ...), never baked into the image.
# /health on 127.0.0.1:9108 inside the container: the gateway connected and the database answering.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]
ENTRYPOINT ["python", "-m", "bot"]
