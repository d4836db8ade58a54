FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# gettext's msgfmt compiles the translations' catalogues (docs/translating.md)
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DJANGO_SETTINGS_MODULE=config.settings.local python manage.py collectstatic --noinput
RUN DJANGO_SETTINGS_MODULE=config.settings.local python manage.py compilemessages
RUN useradd --create-home sawbones
USER sawbones
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "-c", "config/gunicorn.py", "--bind", "0.0.0.0:8000", "--workers", "3"]
