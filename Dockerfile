# Admission Playground served by gunicorn.
FROM python:3.11-slim
WORKDIR /srv/playground
COPY pyproject.toml README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip install --no-cache-dir -e . \
    && useradd --system --no-create-home playground
USER playground
EXPOSE 8000
CMD ["gunicorn", "--config", "python:app.gunicorn_conf", "--bind", "0.0.0.0:8000", "app:create_app()"]
